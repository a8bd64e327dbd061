import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { commitFile, sha256File, TMP_SUFFIX } from '../core/atomic-file.js';
import { queryRows, quoteLiteral } from '../core/duckdb.js';
import { CODE } from '../core/error-codes.js';
import { errorMessage, FanlakeError } from '../core/errors.js';
import type { CompletedRun } from '../load/discover-runs.js';
import { fromDataRelative, type Manifest, quarantinePath, readRunManifest, type RawFile, writeManifest } from '../raw-contract/index.js';

/**
 * The rows of one Parquet file of a run to erase, as a SQL condition on its columns;
 * `undefined` when none can be the ones sought.
 */
export type RowCondition = (manifest: Manifest, columns: readonly string[], path: string) => Promise<string | undefined> | string | undefined;

export interface RawRunErasure {
  /** Runs whose files (or quarantine file) were rewritten. */
  runs: number;
  files: number;
  /** Rows removed from record files (keys files not counted). */
  rows: number;
  /** Lines removed from quarantine files. */
  quarantined: number;
  /** Rows removed, by `source/resource`. */
  byResource: Map<string, number>;
}

/**
 * Removes rows from complete raw runs on disk: each Parquet file (a difference's keys file
 * too) that holds a row `condition` matches is written again without them, to a temp file
 * renamed over it, and the run's manifest is written again with the new row counts, sizes and
 * sha256, so that `load` still verifies the run. Quarantine lines that contain one of
 * `quarantineNeedles` (compared lowercased) go the same way: a quarantined item failed
 * validation and may lack its id fields, so it is known by the text it holds. Files are
 * replaced before their manifest: a crash in between leaves a run `load` rejects as altered,
 * never one that loads erased rows; running the erasure again repairs it.
 */
export async function eraseFromRawRuns(
  connection: DuckDBConnection,
  dataDir: string,
  runs: readonly CompletedRun[],
  condition: RowCondition,
  quarantineNeedles: readonly string[] = [],
): Promise<RawRunErasure> {
  const erased: RawRunErasure = { runs: 0, files: 0, rows: 0, quarantined: 0, byResource: new Map() };
  for (const run of runs) {
    const manifest = await readRunManifest(dataDir, run);
    let changed = false;
    const rewrite = async (file: RawFile, isKeys: boolean): Promise<RawFile> => {
      const path = fromDataRelative(dataDir, file.path);
      const columns = await parquetColumns(connection, path);
      const where = await condition(manifest, columns, path);
      if (where === undefined) return file;
      const source = `read_parquet(${quoteLiteral(path)}, hive_partitioning = false)`;
      const [count] = await queryRows(connection, `select count(*) as n from ${source} where ${where}`);
      const matched = Number(count!.n);
      if (matched === 0) return file;
      const tmp = `${path}${TMP_SUFFIX}`;
      try {
        await connection.run(`copy (select * from ${source} where not (${where})) to ${quoteLiteral(tmp)} (format parquet, compression zstd)`);
        await commitFile(tmp, path);
      } catch (cause) {
        await rm(tmp, { force: true });
        throw new FanlakeError(CODE.E_PRIVACY_ERASE, `cannot rewrite raw file ${file.path}: ${errorMessage(cause)}`, { context: { path: file.path }, cause });
      }
      changed = true;
      erased.files += 1;
      if (!isKeys) {
        erased.rows += matched;
        const key = `${manifest.source}/${manifest.resource}`;
        erased.byResource.set(key, (erased.byResource.get(key) ?? 0) + matched);
      }
      return { path: file.path, rows: file.rows - matched, bytes: (await stat(path)).size, sha256: await sha256File(path) };
    };
    const files: RawFile[] = [];
    for (const file of manifest.files) files.push(await rewrite(file, false));
    const keys = manifest.keys ? await rewrite(manifest.keys, true) : undefined;
    const quarantined = await eraseQuarantineLines(dataDir, manifest, quarantineNeedles);
    erased.quarantined += manifest.quarantined - quarantined;
    if (quarantined !== manifest.quarantined) changed = true;
    if (!changed) continue;
    erased.runs += 1;
    await writeManifest(dataDir, { ...manifest, files, ...(keys ? { keys } : {}), rows: files.reduce((sum, file) => sum + file.rows, 0), quarantined });
  }
  return erased;
}

/** The columns of a Parquet file. */
async function parquetColumns(connection: DuckDBConnection, path: string): Promise<string[]> {
  const rows = await queryRows(connection, `select name from parquet_schema(${quoteLiteral(path)}) where num_children is null`);
  return rows.map((row) => String(row.name));
}

/** Removes the quarantine lines holding a needle; returns the lines left. */
async function eraseQuarantineLines(dataDir: string, manifest: Manifest, needles: readonly string[]): Promise<number> {
  if (manifest.quarantined === 0 || needles.length === 0) return manifest.quarantined;
  const path = quarantinePath(dataDir, manifest);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return manifest.quarantined;
    throw error;
  }
  const lines = text.split('\n').filter((line) => line !== '');
  const kept = lines.filter((line) => !needles.some((needle) => line.toLowerCase().includes(needle.toLowerCase())));
  if (kept.length === lines.length) return manifest.quarantined;
  const tmp = `${path}${TMP_SUFFIX}`;
  await writeFile(tmp, kept.map((line) => `${line}\n`).join(''));
  await commitFile(tmp, path);
  return kept.length;
}
