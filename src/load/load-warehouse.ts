import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { crashPoint } from '../core/crash-point.js';
import { quoteIdent, withConnection } from '../core/duckdb.js';
import type { DatabaseOptions } from '../core/duckdb.js';
import { errorMessage, FanlakeError } from '../core/errors.js';
import { RAW_SCHEMA, rawTableName, readRunManifest, warehousePath as warehousePathOf } from '../raw-contract/index.js';
import type { ExtractionSummary, Manifest } from '../raw-contract/index.js';
import { discoverRuns } from './discover-runs.js';
import type { CompletedRun } from './discover-runs.js';
import { loadedRuns, recordLoads, recordSkips, runKey } from './load-ledger.js';
import { isDifference, requestWholeSnapshots, type SkippedDifference, splitByBase } from './difference-bases.js';
import { readDifferenceBase } from '../warehouse/difference-base.js';
import { mergeTable } from './merge-table.js';
import type { TableMergeInput } from './merge-table.js';
import { verifyRunFiles } from './verify-files.js';
import { flagVanished, markSeenKeys } from './flag-vanished.js';
import { recordRawWrite } from '../warehouse/changed-keys.js';
import { pendingRunSummaries, recordQuarantine, recordRawTables, recordRunSummaries } from './record-run-meta.js';
import { ensureMetaSchema } from '../warehouse/meta-schema.js';
import { bookkeepingRelation, ensureBookkeeping } from '../warehouse/bookkeeping.js';
import { CODE, type ErrorCode } from '../core/error-codes.js';
import { comparePositions, markConsumed } from '../listen/journal.js';
import { readReceiverState } from '../listen/receiver-state.js';

export const LOAD_STATUSES = ['ok', 'failed', 'skipped'] as const;
/** `ok`: merged and committed; `failed`: nothing of it committed (see `error`); `skipped`: no new runs to merge. */
export type LoadStatus = (typeof LOAD_STATUSES)[number];

/** The outcome for one raw table. Counts are those committed: zero unless `status` is `ok`. */
export interface TableLoadResult {
  /** Schema-qualified, e.g. `raw.ticketing_tickets`. */
  table: string;
  source: string;
  resource: string;
  /** Run ids merged (or attempted, when failed), oldest first. */
  runs: string[];
  /**
   * Differences passed over for good, oldest first: taken against another warehouse state
   * (see `warnings`). Recorded in `meta.skipped_runs`; their raw files stay.
   */
  skippedRuns?: string[];
  /** Why each of `skippedRuns` was skipped (`E_LOAD_DIFFERENCE_BASE`): warnings, not failures. */
  warnings?: FanlakeError[];
  /** Rows read from the new files, duplicates included. */
  rowsIn: number;
  /** Keys new to the table. */
  inserted: number;
  /** Keys whose row was replaced by a newer version with different values. */
  updated: number;
  /** Keys of the new files whose row kept its values (the table had the same or a newer version). */
  unchanged?: number;
  /** Schema changes made to the table by this load, one line each. */
  drift: string[];
  /** Records a complete snapshot no longer had, newly flagged in `_vanished_at`. */
  vanished?: number;
  status: LoadStatus;
  error?: FanlakeError;
}

/** Progress, in order: `load-started`, one `table-merged` per table, then `committed` or `rolled-back`. */
export type LoadEvent =
  | { type: 'load-started'; tables: number; runs: number }
  | { type: 'table-merged'; result: TableLoadResult }
  | { type: 'committed' }
  | { type: 'rolled-back'; error: FanlakeError };

export interface LoadWarehouseOptions extends DatabaseOptions {
  dataDir: string;
  /** Defaults to `<dataDir>/warehouse.duckdb`. */
  warehousePath?: string;
  /** Called synchronously as the load progresses. */
  onEvent?: (event: LoadEvent) => void;
  /** The warehouse, already open (`run` opens it once for its load, build, check and reports); left open. */
  instance?: DuckDBInstance;
}

interface PreparedTable {
  result: TableLoadResult;
  input: TableMergeInput;
  /** The runs to merge; none when every pending run is a skipped difference. */
  manifests: Manifest[];
  skipped: SkippedDifference[];
}

/**
 * `fanlake load`: merges every complete resource-run not loaded yet into `raw.<source>_<resource>`.
 *
 * All tables and the ledger change in ONE transaction, so a failure or a kill leaves the
 * warehouse exactly as before. A table whose runs cannot be read (bad manifest, missing or
 * altered file) is reported `failed` before the transaction starts and left out; the others
 * still load. A snapshot difference taken against another state of its table than the one
 * it would be applied onto is skipped with a warning (see `splitByBase`), recorded as such,
 * and the next extract writes the resource whole. Never throws for a table's problem, only
 * when the warehouse cannot be opened.
 */
export async function loadWarehouse(options: LoadWarehouseOptions): Promise<TableLoadResult[]> {
  const warehousePath = options.warehousePath ?? warehousePathOf(options.dataDir);
  const completed = await discoverRuns(options.dataDir);
  return withConnection(
    options.instance ?? warehousePath,
    async (connection) => {
      // A warehouse of an earlier fanlake has its ledger moved first, so its runs count as loaded.
      await ensureBookkeeping(connection);
      const loaded = await loadedRuns(connection);
      const results: TableLoadResult[] = [];
      const ready: PreparedTable[] = [];
      for (const runs of groupByResource(completed)) {
        const pending = runs.filter((run) => !loaded.has(runKey(run)));
        const result = emptyResult(runs[0], pending);
        results.push(result);
        if (pending.length === 0) continue;
        try {
          ready.push({ result, ...(await prepareTable(connection, options.dataDir, result, pending)) });
        } catch (error) {
          fail(result, toLoadError(error, CODE.E_LOAD_PREPARE, result.table));
        }
      }
      const summaries = await pendingRunSummaries(connection, options.dataDir);
      await requestWholeSnapshots(options.dataDir, ready.flatMap((table) => table.skipped));
      if (ready.length > 0) await mergeAll(connection, ready, options.dataDir, summaries, options.onEvent);
      else if (summaries.length > 0) await recordSummariesOnly(connection, summaries);
      if (ready.every((table) => table.result.status !== 'failed')) await consumeChanges(options.dataDir, summaries, results);
      return results;
    },
    options,
  );
}

async function mergeAll(
  connection: DuckDBConnection,
  tables: PreparedTable[],
  dataDir: string,
  summaries: readonly ExtractionSummary[],
  onEvent: LoadWarehouseOptions['onEvent'],
): Promise<void> {
  onEvent?.({ type: 'load-started', tables: tables.filter((table) => table.manifests.length > 0).length, runs: tables.reduce((sum, table) => sum + table.manifests.length, 0) });
  let current: PreparedTable | undefined;
  await connection.run('begin transaction');
  try {
    await connection.run(`create schema if not exists ${quoteIdent(RAW_SCHEMA)}`);
    for (const table of tables) {
      if (table.manifests.length === 0) continue;
      current = table;
      Object.assign(table.result, await mergeTable(connection, table.input), { status: 'ok' });
      table.result.unchanged = (table.result.unchanged ?? 0) + (await markSeenKeys(connection, table.input.schema, table.input.table, dataDir, table.manifests));
      const { flagged, unflagged } = await flagVanished(connection, table.input.schema, table.input.table, table.manifests);
      table.result.vanished = flagged;
      const { inserted, updated, drift } = table.result;
      await recordRawWrite(connection, table.result.table, inserted + updated + flagged + unflagged > 0 || drift.length > 0);
      onEvent?.({ type: 'table-merged', result: table.result });
      crashPoint('load:table-merged');
    }
    current = undefined;
    const manifests = tables.flatMap((table) => table.manifests);
    await recordLoads(connection, manifests);
    await recordSkips(connection, tables.flatMap((table) => table.skipped));
    // Run records travel in the same transaction: meta never describes data that is not in.
    await ensureMetaSchema(connection);
    await recordRunSummaries(connection, summaries);
    await recordQuarantine(connection, dataDir, manifests);
    await recordRawTables(connection, manifests);
    await connection.run('commit');
    onEvent?.({ type: 'committed' });
    crashPoint('load:committed');
  } catch (cause) {
    await connection.run('rollback').catch(() => undefined);
    const error = toLoadError(cause, CODE.E_LOAD_MERGE, current?.result.table ?? bookkeepingRelation('load_ledger'));
    for (const table of tables) {
      fail(
        table.result,
        table === current
          ? error
          : new FanlakeError(CODE.E_LOAD_ROLLED_BACK, `rolled back: ${error.message}`, {
              context: { table: table.result.table },
              cause: error,
            }),
      );
    }
    onEvent?.({ type: 'rolled-back', error });
  }
}

/**
 * Marks the change journal consumed up to where the runs just committed reach (a targeted
 * run's re-read profiles, a full snapshot's start), so the next run does not read them
 * again. After the commit, outside it: a crash in between only makes the next run re-read
 * those profiles. A run with a table that failed to load, or with a skipped difference, is
 * left out: its changes stay.
 */
async function consumeChanges(dataDir: string, summaries: readonly ExtractionSummary[], results: readonly TableLoadResult[]): Promise<void> {
  const failedRuns = new Set(results.flatMap((result) => [...(result.status === 'failed' ? result.runs : []), ...(result.skippedRuns ?? [])]));
  const reached = summaries
    .filter((summary) => summary.changes && !failedRuns.has(summary.runId))
    .map((summary) => summary.changes!.through)
    .sort(comparePositions)
    .at(-1);
  if (reached) await markConsumed(dataDir, reached, (await readReceiverState(dataDir))?.segment);
}

/** A load with no new raw runs still records the summaries of extractions that produced none (failed runs). */
async function recordSummariesOnly(connection: DuckDBConnection, summaries: readonly ExtractionSummary[]): Promise<void> {
  await connection.run('begin transaction');
  try {
    await ensureMetaSchema(connection);
    await recordRunSummaries(connection, summaries);
    await connection.run('commit');
  } catch (error) {
    await connection.run('rollback').catch(() => undefined);
    throw toLoadError(error, CODE.E_LOAD_META, 'meta.extraction_runs');
  }
}

/**
 * Reads and checks a table's pending runs, and sets aside the differences that do not fit
 * the table's state (noted on `result`); nothing here changes the warehouse.
 */
async function prepareTable(
  connection: DuckDBConnection,
  dataDir: string,
  result: TableLoadResult,
  runs: CompletedRun[],
): Promise<Omit<PreparedTable, 'result'>> {
  const table = result.table;
  const pending: Manifest[] = [];
  for (const run of runs) pending.push(await readRunManifest(dataDir, run));
  // The table's state is read only when a difference asks for it: a row count is cheap, not free.
  const first = pending[0]!;
  const current = pending.some(isDifference) ? await readDifferenceBase(connection, first.source, first.resource) : undefined;
  const { apply: manifests, skip: skipped } = splitByBase(pending, current);
  const files: string[] = [];
  for (const manifest of manifests) files.push(...(await verifyRunFiles(dataDir, manifest)));
  // Runs are oldest first; the newest declaration of key and cursor applies.
  const newest = manifests.at(-1) ?? pending.at(-1)!;
  const keys = JSON.stringify(newest.primaryKey);
  const changed = manifests.find((manifest) => JSON.stringify(manifest.primaryKey) !== keys);
  if (changed !== undefined) {
    throw new FanlakeError(CODE.E_LOAD_KEY, `primary key of ${table} differs between runs ${changed.runId} and ${newest.runId}`, {
      context: { table },
    });
  }
  const { schema, table: name } = rawTableName(newest.source, newest.resource);
  if (skipped.length > 0) Object.assign(result, { runs: manifests.map((manifest) => manifest.runId), skippedRuns: skipped.map(({ manifest }) => manifest.runId), warnings: skipped.map(({ warning }) => warning) });
  return {
    manifests,
    skipped,
    input: { schema, table: name, primaryKey: newest.primaryKey, cursorField: newest.cursorField, files },
  };
}

function groupByResource(runs: CompletedRun[]): CompletedRun[][] {
  const groups = new Map<string, CompletedRun[]>();
  for (const run of runs) {
    const key = `${run.source}/${run.resource}`;
    groups.set(key, [...(groups.get(key) ?? []), run]);
  }
  return [...groups.values()];
}

function emptyResult(run: CompletedRun, pending: CompletedRun[]): TableLoadResult {
  const { schema, table } = rawTableName(run.source, run.resource);
  return {
    table: `${schema}.${table}`,
    source: run.source,
    resource: run.resource,
    runs: pending.map((pendingRun) => pendingRun.runId),
    rowsIn: 0,
    inserted: 0,
    updated: 0,
    unchanged: 0,
    drift: [],
    status: 'skipped',
  };
}

function fail(result: TableLoadResult, error: FanlakeError): void {
  Object.assign(result, { rowsIn: 0, inserted: 0, updated: 0, unchanged: 0, drift: [], status: 'failed', error });
}

function toLoadError(error: unknown, code: ErrorCode, table: string): FanlakeError {
  if (error instanceof FanlakeError) return error;
  return new FanlakeError(code, `loading ${table} failed: ${errorMessage(error)}`, { context: { table }, cause: error });
}
