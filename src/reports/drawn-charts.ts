import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Charts a report drew before, by what they were drawn from. A chart's SVG is a function of
 * its Vega-Lite spec (which holds its rows), the number locale and the versions of Vega and
 * Vega-Lite, so a chart whose inputs hash to a key drawn before is that SVG: a quiet hour
 * leaves most charts' rows as they were, and drawing them again was most of a rendering's own
 * CPU (about 30 ms a chart).
 */
export interface DrawnCharts {
  /** The SVG drawn for `key`, or undefined when none was kept. */
  get(key: string): Promise<string | undefined>;
  /** Keeps `svg` as the chart drawn for `key`. */
  put(key: string, svg: string): Promise<void>;
}

/** The key of a chart: a hash of everything its SVG is drawn from. */
export function chartKey(parts: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify([DRAWN_CHARTS_FORMAT, ...parts])).digest('hex');
}

/** Changes when what a key covers changes, so no chart kept under an older meaning is used. */
const DRAWN_CHARTS_FORMAT = 1;

/**
 * The charts of one report's last rendering, one file per key in `<out>/<report>/.charts`
 * (beside the renderings, which it is not one of). A rendering takes what it finds there and
 * keeps what it drew in memory; once it is published, `save` writes those and removes every
 * file it neither drew nor used, so the folder holds one rendering's charts, and a rendering
 * refused or failed leaves it as it was. A file is written under a temporary name and renamed;
 * one that does not hold a whole SVG is drawn again.
 */
export class ChartFolder implements DrawnCharts {
  private readonly used = new Set<string>();
  private readonly drawn = new Map<string, string>();

  constructor(private readonly dir: string) {}

  async get(key: string): Promise<string | undefined> {
    const svg = this.drawn.get(key) ?? (await readFile(this.path(key), 'utf8').catch(() => undefined));
    if (svg === undefined || !svg.startsWith('<svg') || !svg.endsWith('</svg>')) return undefined;
    this.used.add(key);
    return svg;
  }

  async put(key: string, svg: string): Promise<void> {
    this.drawn.set(key, svg);
  }

  /** Writes the charts this rendering drew and removes those it neither drew nor used. */
  async save(): Promise<void> {
    if (this.drawn.size > 0) await mkdir(this.dir, { recursive: true });
    for (const [key, svg] of this.drawn) {
      const temporary = `${this.path(key)}.${process.pid}.tmp`;
      await writeFile(temporary, svg);
      await rename(temporary, this.path(key));
    }
    const names = await readdir(this.dir).catch(() => [] as string[]);
    for (const name of names) {
      const key = name.replace(/\.svg$/, '');
      if (!name.endsWith('.svg') || !(this.used.has(key) || this.drawn.has(key))) await rm(join(this.dir, name), { force: true });
    }
  }

  private path(key: string): string {
    return join(this.dir, `${key}.svg`);
  }
}

/** Where a report's drawn charts are kept, under its folder of renderings. */
export function chartFolderOf(reportDir: string): string {
  return join(reportDir, CHARTS_FOLDER);
}

const CHARTS_FOLDER = '.charts';
