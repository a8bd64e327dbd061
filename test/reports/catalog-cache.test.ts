import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IN_MEMORY, withConnection } from '../../src/core/duckdb.js';
import { UsageError } from '../../src/core/errors.js';
import { loadReportCatalog, type ReportCatalog } from '../../src/reports/index.js';
import { loadReportCatalogCached } from '../../src/reports/catalog-cache.js';
import { REPO } from '../helpers/cli.js';

let dir: string;
let reportsDir: string;
let modelsDir: string;
let cacheFile: string;

// the shipped definitions and models, copied: every kind of block, parameter and model
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fanlake-catalog-cache-'));
  reportsDir = join(dir, 'reports');
  modelsDir = join(dir, 'sql');
  cpSync(join(REPO, 'reports'), reportsDir, { recursive: true });
  cpSync(join(REPO, 'sql'), modelsDir, { recursive: true });
  cacheFile = join(dir, 'out', '.catalog.json');
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

const fresh = () => withConnection(IN_MEMORY, (scratch) => loadReportCatalog(scratch, reportsDir, modelsDir));
/** Loads the catalog as a command that goes on with it does: kept. */
async function cached(): Promise<ReportCatalog> {
  const { catalog, keep } = await loadReportCatalogCached(cacheFile, reportsDir, modelsDir);
  await keep();
  return catalog;
}

/** A catalog as plain data, maps and sets as sorted entries, for exact comparison. */
function plain(catalog: ReportCatalog): string {
  return JSON.stringify({
    reports: catalog.reports.map((report) => ({ ...report, queries: [...report.queries], shapes: [...report.shapes] })),
    sourcesOf: [...catalog.sourcesOf].sort(),
    optionalSources: [...catalog.optionalSources].sort(),
  });
}

/** Changes the title of the first report in the kept file, leaving its key: a catalog read from the file shows it. */
function markKeptCatalog(): void {
  const kept = JSON.parse(readFileSync(cacheFile, 'utf8'));
  kept.reports[0].meta.title = 'read from the kept file';
  writeFileSync(cacheFile, JSON.stringify(kept));
}

describe('loadReportCatalogCached', () => {
  it('keeps the catalog it checked and reads back the same one, maps and sets included', async () => {
    const expected = await fresh();
    const first = await cached();
    expect(existsSync(cacheFile)).toBe(true);
    const second = await cached();
    expect(plain(first)).toBe(plain(expected));
    expect(plain(second)).toBe(plain(expected));
    // no property JSON would drop (one set to undefined) goes missing
    expect(second).toStrictEqual(expected);
    expect(second.reports[0]!.queries).toBeInstanceOf(Map);
    expect(second.reports[0]!.shapes).toBeInstanceOf(Map);
    expect(second.sourcesOf).toBeInstanceOf(Map);
    expect(second.optionalSources).toBeInstanceOf(Set);
    markKeptCatalog();
    expect((await cached()).reports[0]!.meta.title).toBe('read from the kept file');
  });

  it('checks the definitions again when a definition or a model changed', async () => {
    await cached();
    markKeptCatalog();
    appendFileSync(join(reportsDir, 'revenue.md'), '\nOne more line of prose.\n');
    const afterReport = await cached();
    expect(afterReport.reports[0]!.meta.title).not.toBe('read from the kept file');
    expect(plain(afterReport)).toBe(plain(await fresh()));

    markKeptCatalog();
    appendFileSync(join(modelsDir, 'marts', 'dim_match.sql'), '\n-- a comment\n');
    expect((await cached()).reports[0]!.meta.title).not.toBe('read from the kept file');
  });

  it('keeps no catalog with problems: each load throws them again', async () => {
    await cached();
    const kept = readFileSync(cacheFile, 'utf8');
    writeFileSync(join(reportsDir, 'broken.md'), '---\ntitle: Broken\n---\n\n```table\nquery: nowhere\ntitle: T\n```\n');
    await expect(cached()).rejects.toThrow(UsageError);
    await expect(cached()).rejects.toThrow(/broken\.md: table block at line 5: query nowhere is not defined/);
    expect(readFileSync(cacheFile, 'utf8')).toBe(kept);
  });

  it('writes nothing until the catalog is kept', async () => {
    const { catalog } = await loadReportCatalogCached(cacheFile, reportsDir, modelsDir);
    expect(catalog.reports.length).toBeGreaterThan(0);
    expect(existsSync(cacheFile)).toBe(false);
  });

  it('loads the definitions when the kept file is not a catalog', async () => {
    await cached();
    writeFileSync(cacheFile, '{"format": 1, "key": "tor');
    expect(plain(await cached())).toBe(plain(await fresh()));
  });
});
