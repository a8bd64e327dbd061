import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileAtomic } from '../core/atomic-file.js';
import { IN_MEMORY, withConnection } from '../core/duckdb.js';
import { DEFAULT_MODELS_DIR } from '../models/discover-project.js';
import { DEFAULT_REPORTS_DIR, loadReportCatalog, type ReportCatalog } from './report-catalog.js';

/** `<out>/.catalog.json`: beside the report folders, not one of them (the index skips dot names). */
export const CATALOG_CACHE_FILE = '.catalog.json';

/** Changes when what a key covers or how a catalog is stored changes, so no older file is read as a newer one. */
const CATALOG_CACHE_FORMAT = 1;

/** A catalog, and how to keep it for the next load. */
export interface CachedCatalog {
  catalog: ReportCatalog;
  /**
   * Writes a catalog just checked to the cache file (nothing for one read from it). Called once
   * the command goes on with it, so that a command refused as bad usage leaves nothing behind;
   * never throws: a catalog not kept is checked again next time.
   */
  keep(): Promise<void>;
}

/**
 * The report catalog, taken from `cacheFile` when it was checked from the same definitions,
 * models and fanlake; otherwise loaded ({@link loadReportCatalog}), to be kept there for the next
 * run. Parsing the definitions (their YAML blocks most of all) and the models' SQL cost about
 * 0.2-0.3 s of every `run`, before its extract, while a club changes them a few times a season.
 * A catalog with problems is never kept: its UsageError is thrown as before, every time.
 *
 * The key hashes every definition file and every file under `modelsDir` (what the catalog reads),
 * both folders' paths (the messages name them) and this module's own file: the build of fanlake,
 * whose bundled chunk holds the parsing code and names the chunks it imports by their content.
 */
export async function loadReportCatalogCached(cacheFile: string, reportsDir = DEFAULT_REPORTS_DIR, modelsDir = DEFAULT_MODELS_DIR): Promise<CachedCatalog> {
  const key = await catalogKey(reportsDir, modelsDir);
  const kept = await readKept(cacheFile, key);
  if (kept !== undefined) return { catalog: kept, keep: async () => undefined };
  const catalog = await withConnection(IN_MEMORY, (scratch) => loadReportCatalog(scratch, reportsDir, modelsDir));
  return { catalog, keep: () => keep(cacheFile, key, catalog).catch(() => undefined) };
}

/** The hash of everything a catalog is checked from. */
export async function catalogKey(reportsDir: string, modelsDir: string): Promise<string> {
  const hash = createHash('sha256');
  const add = (label: string, content: string | Buffer) => hash.update(`${label}\0${Buffer.byteLength(content)}\0`).update(content);
  add('format', String(CATALOG_CACHE_FORMAT));
  add('code', await readFile(fileURLToPath(import.meta.url)));
  for (const [label, dir] of [['reports', reportsDir], ['models', modelsDir]] as const) {
    add(label, resolve(dir));
    // every file, whatever the catalog makes of it: the listing is cheaper than knowing which it reads
    const files = (await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []))
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name))
      .sort();
    for (const file of files) add(file, await readFile(file));
  }
  return hash.digest('hex');
}

/** What the cache file holds: the key it was checked under, and the catalog with its maps and sets as entry lists. */
interface KeptCatalog {
  format: number;
  key: string;
  reports: (Omit<ReportCatalog['reports'][number], 'queries' | 'shapes'> & { queries: [string, unknown][]; shapes: [string, unknown][] })[];
  sourcesOf: [string, string[]][];
  optionalSources: string[];
}

async function readKept(cacheFile: string, key: string): Promise<ReportCatalog | undefined> {
  let kept: KeptCatalog;
  try {
    kept = JSON.parse(await readFile(cacheFile, 'utf8')) as KeptCatalog;
  } catch {
    return undefined;
  }
  if (kept?.format !== CATALOG_CACHE_FORMAT || kept.key !== key) return undefined;
  return {
    reports: kept.reports.map((report) => ({ ...report, queries: new Map(report.queries), shapes: new Map(report.shapes) }) as ReportCatalog['reports'][number]),
    sourcesOf: new Map(kept.sourcesOf),
    optionalSources: new Set(kept.optionalSources),
  };
}

/** Writes the file whole or not at all (core/atomic-file.ts): a reader finds the old file or the whole new one. */
async function keep(cacheFile: string, key: string, catalog: ReportCatalog): Promise<void> {
  const kept: KeptCatalog = {
    format: CATALOG_CACHE_FORMAT,
    key,
    reports: catalog.reports.map((report) => ({ ...report, queries: [...report.queries], shapes: [...report.shapes] })),
    sourcesOf: [...catalog.sourcesOf].map(([relation, sources]) => [relation, [...sources]]),
    optionalSources: [...catalog.optionalSources],
  };
  await mkdir(dirname(cacheFile), { recursive: true });
  await writeFileAtomic(cacheFile, JSON.stringify(kept));
}
