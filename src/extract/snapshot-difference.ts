import { existsSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { commitFile, sha256File, TMP_SUFFIX } from '../core/atomic-file.js';
import { SerialQueue } from '../core/serial-queue.js';
import { openDatabase, queryRows, quoteIdent, quoteLiteral, withConnection } from '../core/duckdb.js';
import {
  batchSelect, describeParquet, type DifferenceBase, planSchema, fromDataRelative, isLineageColumn, MANIFEST_FILE, parseRunDirName, type RawFile, rawTableName, resourceDir, runDir, toDataRelative, warehousePath,
} from '../raw-contract/index.js';
import { findBookkeeping } from '../warehouse/bookkeeping.js';
import { readDifferenceBase } from '../warehouse/difference-base.js';
import { tableColumns } from '../warehouse/warehouse.js';

/** What a complete snapshot keeps of itself when written as a difference. */
export interface SnapshotDifference {
  /** The records new or changed against the warehouse; none when nothing changed. */
  readonly files: RawFile[];
  readonly rows: number;
  /** The key of every record the snapshot saw: the load's evidence of what is still there. */
  readonly keys: RawFile;
  /** The warehouse state it was cut against: the load applies it onto that state only. */
  readonly base: DifferenceBase;
}

export interface DifferenceInput {
  readonly dataDir: string;
  readonly source: string;
  readonly resource: string;
  readonly runId: string;
  readonly primaryKey: readonly string[];
  /** The snapshot's Parquet parts as written, relative to the data dir. */
  readonly files: readonly RawFile[];
}

/** The file of a snapshot written as a difference that holds every key it saw. */
export const KEYS_FILE = 'keys.parquet';

/**
 * Cuts a complete snapshot down to the records the warehouse does not hold with the same
 * values, plus the set of keys it saw (docs/extraction.md, "Snapshots written as
 * differences"): a snapshot repeats nearly every record, so written whole it costs the raw
 * files of the whole data set on every run. The load merges the records and takes the keys as the snapshot's
 * evidence, so the warehouse ends as if the whole snapshot had been loaded.
 *
 * Compared with the warehouse as it is, which is only the state the records will be merged
 * into when no earlier run of the resource waits to be loaded: otherwise (or without a
 * warehouse, a table, or the same columns and types in table and files) the snapshot stays
 * whole, and undefined is returned. The state compared with is returned as `base`, for the
 * manifest: the load applies the difference onto that state only (load/difference-bases.ts).
 * The warehouse is attached read-only to an in-memory DuckDB for the comparison; a warehouse
 * that cannot be opened leaves the snapshot whole too.
 */
export function writeAsDifference(input: DifferenceInput): Promise<SnapshotDifference | undefined> {
  // One at a time: the resources of a run commit concurrently, and each attaches the warehouse.
  return comparisons.run(() => difference(input));
}

const comparisons = new SerialQueue();

async function difference(input: DifferenceInput): Promise<SnapshotDifference | undefined> {
  const path = warehousePath(input.dataDir);
  if (!existsSync(path)) return undefined;
  const { schema, table } = rawTableName(input.source, input.resource);
  let instance;
  try {
    instance = await openDatabase(':memory:', { memoryLimit: '512MB', threads: 2 });
  } catch {
    return undefined;
  }
  try {
    return await withConnection(instance, async (connection) => {
      try {
        await connection.run(`attach ${quoteLiteral(path)} as warehouse (read_only)`);
      } catch {
        return undefined; // held by a writer elsewhere: keep the snapshot whole
      }
      const target = `warehouse.${quoteIdent(schema)}.${quoteIdent(table)}`;
      if (!(await waitsForNothing(connection, input))) return undefined;
      const base = await readDifferenceBase(connection, input.source, input.resource, 'warehouse');
      if (base === undefined) return undefined;
      const columns = await tableColumns(connection, schema, table, 'warehouse');
      if (columns === undefined) return undefined;
      const paths = input.files.map((file) => fromDataRelative(input.dataDir, file.path));
      const described = [];
      for (const file of paths) described.push({ path: file, columns: await describeParquet(connection, file) });
      const plan = planSchema(columns, described.map((file) => file.columns));
      if (plan.added.length > 0 || plan.widened.length > 0) return undefined;
      return { ...(await cut(connection, input, target, plan.target, described)), base };
    });
  } finally {
    instance.closeSync();
  }
}

/** True when every earlier run of the resource with a manifest is in the warehouse's load ledger, or skipped by a load for good. */
async function waitsForNothing(connection: DuckDBConnection, input: DifferenceInput): Promise<boolean> {
  const ledger = await findBookkeeping(connection, 'load_ledger', 'warehouse');
  if (ledger === undefined) return false;
  const skipped = await findBookkeeping(connection, 'skipped_runs', 'warehouse');
  const accounted = skipped === undefined ? ledger : `(select source, resource, run_id from ${ledger} union all select source, resource, run_id from ${skipped})`;
  const loaded = new Set(
    (await queryRows(connection, `select run_id from ${accounted} where source = $1 and resource = $2`, [input.source, input.resource])).map((row) => String(row.run_id)),
  );
  const folders = await readdir(resourceDir(input.dataDir, input.source, input.resource)).catch(() => [] as string[]);
  for (const folder of folders) {
    const runId = parseRunDirName(folder);
    if (runId === undefined || runId === input.runId || loaded.has(runId)) continue;
    if (existsSync(join(resourceDir(input.dataDir, input.source, input.resource), folder, MANIFEST_FILE))) return false;
  }
  return true;
}

/** Writes the changed records and the keys, then replaces the snapshot's parts with them. */
async function cut(
  connection: DuckDBConnection,
  input: DifferenceInput,
  target: string,
  columns: Map<string, string>,
  files: { path: string; columns: Map<string, string> }[],
): Promise<Omit<SnapshotDifference, 'base'>> {
  const dir = runDir(input.dataDir, input);
  // The batch's columns are the table's, cast where a file lacks one; the output keeps the files' own.
  await connection.run(`create or replace temp view snapshot_batch as\n${batchSelect(files, columns)}`);
  const fileColumns = [...files[0]!.columns.keys()];
  const keys = input.primaryKey.map((key) => [...columns.keys()].find((name) => name.toLowerCase() === key.toLowerCase()) ?? key);
  const same = [...columns.keys()].filter((name) => !isLineageColumn(name)).map((name) => `batch.${quoteIdent(name)} is not distinct from kept.${quoteIdent(name)}`).join(' and ');
  const changedPath = join(dir, `difference.parquet${TMP_SUFFIX}`);
  const keysPath = join(dir, `${KEYS_FILE}${TMP_SUFFIX}`);
  const written = await connection.runAndReadAll(`
copy (
    select ${fileColumns.map((name) => `batch.${quoteIdent(name)}`).join(', ')}
    from snapshot_batch as batch
    anti join ${target} as kept on ${same || 'true'}
) to ${quoteLiteral(changedPath)} (format parquet, compression zstd, dictionary_size_limit 0)`);
  const rows = Number(written.rowsChanged);
  const keyCount = Number((await connection.runAndReadAll(`
copy (
    select distinct ${keys.map(quoteIdent).join(', ')} from snapshot_batch order by all
) to ${quoteLiteral(keysPath)} (format parquet, compression zstd)`)).rowsChanged);

  for (const file of input.files) await rm(fromDataRelative(input.dataDir, file.path), { force: true });
  const out: RawFile[] = [];
  if (rows > 0) out.push(await commitRawFile(input.dataDir, changedPath, join(dir, 'part-00000.parquet'), rows));
  else await rm(changedPath, { force: true });
  const keysFile = await commitRawFile(input.dataDir, keysPath, join(dir, KEYS_FILE), keyCount);
  return { files: out, rows, keys: keysFile };
}

async function commitRawFile(dataDir: string, from: string, to: string, rows: number): Promise<RawFile> {
  await commitFile(from, to);
  return { path: toDataRelative(dataDir, to), rows, bytes: (await stat(to)).size, sha256: await sha256File(to) };
}
