import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { type DuckDBBudget, queryRows, withConnection } from '../core/duckdb.js';
import { folderBytes } from '../core/folder-bytes.js';
import { rawRoot, runDir, warehousePath } from '../raw-contract/index.js';
import { findBookkeeping } from '../warehouse/bookkeeping.js';
import { withWarehouseReader } from '../warehouse/warehouse.js';
import { discoverRuns } from './discover-runs.js';
import { runKey } from './load-ledger.js';

export interface PruneOptions {
  dataDir: string;
  /** Runs started longer ago than this go; 0 keeps everything. */
  retentionDays: number;
  now?: Date;
  /** What DuckDB may use reading the ledger (config/duckdb-budget.ts). */
  budget?: DuckDBBudget;
  /** The warehouse, already open (`run`'s); left open. Absent: opened read-only for the ledger. */
  instance?: DuckDBInstance;
}

export interface PruneResult {
  runs: number;
  bytes: number;
}

/**
 * Removes raw runs older than the retention. Their rows stay in the warehouse; only runs the
 * ledger records as loaded (or `meta.skipped_runs` as skipped for good) go, and never the newest run of a resource nor its newest
 * snapshot, which `load` compares the next snapshot against. Call it holding the writer
 * lock: it must not race a load.
 */
export async function pruneRawRuns(options: PruneOptions): Promise<PruneResult> {
  if (options.retentionDays <= 0 || (options.instance === undefined && !existsSync(warehousePath(options.dataDir)))) return { runs: 0, bytes: 0 };
  const cutoff = (options.now ?? new Date()).getTime() - options.retentionDays * 86_400_000;
  const ledger = await (options.instance === undefined ? withWarehouseReader(options.dataDir, readLedger, options.budget) : withConnection(options.instance, readLedger));
  const completed = await discoverRuns(options.dataDir);

  // Newest run and newest snapshot of each resource, whatever their age.
  const keep = new Set<string>();
  const newest = new Map<string, string>();
  for (const run of completed) newest.set(`${run.source}/${run.resource}`, runKey(run)); // sorted oldest first
  for (const key of newest.values()) keep.add(key);
  for (const key of ledger.newestSnapshots) keep.add(key);

  let runs = 0;
  let bytes = 0;
  for (const run of completed) {
    const key = runKey(run);
    if (keep.has(key) || !ledger.loaded.has(key) || runStartedAt(run.runId) >= cutoff) continue;
    const dir = runDir(options.dataDir, run);
    bytes += (await folderBytes(dir)).total;
    await rm(dir, { recursive: true, force: true });
    runs += 1;
  }
  return { runs, bytes };
}

/** Bytes under `$DATA/raw`, for `status`. */
export async function rawLayerBytes(dataDir: string): Promise<number> {
  return (await folderBytes(rawRoot(dataDir))).total;
}

/** The runs the ledger (or `meta.skipped_runs`) accounts for, and each resource's newest loaded snapshot. */
async function readLedger(connection: DuckDBConnection): Promise<{ loaded: Set<string>; newestSnapshots: Set<string> }> {
  const ledger = await findBookkeeping(connection, 'load_ledger');
  if (ledger === undefined) return { loaded: new Set<string>(), newestSnapshots: new Set<string>() };
  const rows = await queryRows(
    connection,
    `select source, resource, run_id, is_snapshot and run_id = max(run_id) filter (where is_snapshot) over (partition by source, resource) as newest_snapshot from ${ledger}`,
  );
  const loaded = new Set<string>();
  const newestSnapshots = new Set<string>();
  for (const row of rows) {
    const key = runKey({ source: String(row.source), resource: String(row.resource), runId: String(row.run_id) });
    loaded.add(key);
    if (row.newest_snapshot === true) newestSnapshots.add(key);
  }
  // Differences the load skipped for good are accounted for in meta.skipped_runs: they age out like loaded runs.
  const skipped = await findBookkeeping(connection, 'skipped_runs');
  if (skipped !== undefined) {
    for (const row of await queryRows(connection, `select source, resource, run_id from ${skipped}`)) loaded.add(runKey({ source: String(row.source), resource: String(row.resource), runId: String(row.run_id) }));
  }
  return { loaded, newestSnapshots };
}

/** A run id starts with its UTC start time, `YYYYMMDDTHHMMSSZ`. */
function runStartedAt(runId: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z/.exec(runId)!;
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
}
