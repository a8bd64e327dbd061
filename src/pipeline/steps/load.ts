import type { DuckDBInstance } from '@duckdb/node-api';
import { loadWarehouse, type TableLoadResult } from '../../load/index.js';
import { pruneRawRuns } from '../../load/prune-raw-runs.js';
import { warehousePath } from '../../raw-contract/index.js';
import type { StepSummary } from '../run-summary.js';
import { toErrorRecord } from '../../core/error-record.js';
import { errorMessage, type FanlakeError } from '../../core/errors.js';
import { redact } from '../../core/secrets.js';
import { duckdbBudget } from '../../config/duckdb-budget.js';
import { type StepContext, statusOf, stepErrors } from './step.js';
import type { Config } from '../../config/load-config.js';
import { describeDropped, dropTombstoned, type TombstonedDrop } from '../../privacy/drop-tombstoned.js';
import { eraseVanished, type VanishedErasure } from '../../privacy/erase-vanished.js';

/** What a load did besides merging: records of forgotten people dropped, vanished records cleared. */
export interface LoadErasure {
  readonly dropped: TombstonedDrop;
  readonly vanished: VanishedErasure;
}

/**
 * A load with the privacy work around it: rows of people `forget` erased are dropped from the
 * runs before they merge (the source still holds them), and records vanished longer than
 * `privacy.vanishedDays` have their personal data erased after. The load and run commands and
 * scheduled jobs all load through here. `instance`: the warehouse, when the caller has it open
 * (`run`); each part opens and closes it itself otherwise.
 */
export async function loadWithErasure(config: Config, now = new Date(), instance?: DuckDBInstance): Promise<{ results: TableLoadResult[]; erasure: LoadErasure }> {
  const { dataDir } = config;
  const budget = duckdbBudget(config);
  const dropped = await dropTombstoned(dataDir, budget, instance);
  const results = await loadWarehouse({ dataDir, warehousePath: warehousePath(dataDir), ...budget, instance });
  // The merge is committed: a failed erasure is said in every summary, and the next load tries again.
  const vanished = await eraseVanished({ dataDir, vanishedDays: config['privacy.vanishedDays'], now, budget, instance }).catch(
    (error: unknown): VanishedErasure => ({ cleared: new Map(), rawRows: 0, error: errorMessage(error) }),
  );
  return { results, erasure: { dropped, vanished } };
}

/** Lines that say what the erasure around a load did; none when it did nothing. */
export function describeErasure(erasure: LoadErasure): string[] {
  const lines = describeDropped(erasure.dropped);
  for (const [table, records] of erasure.vanished.cleared) {
    lines.push(`${table}: personal data of ${records} record${records === 1 ? '' : 's'} vanished at the source for longer than privacy.vanishedDays erased`);
  }
  if (erasure.vanished.error) lines.push(`warning: erasing the personal data of vanished records failed (the next load tries again): ${redact(erasure.vanished.error)}`);
  return lines;
}

/**
 * The load stage's results as a step: partial when some tables failed and others loaded. A
 * skipped difference is a warning in the notes, with its code, and no failure: the next
 * extract writes its resource whole.
 */
export function summarizeLoad(results: readonly TableLoadResult[], erasure?: LoadErasure): Omit<StepSummary, 'step' | 'seconds'> {
  const failed = results.filter((r) => r.status === 'failed');
  const loaded = results.filter((r) => r.status === 'ok');
  const sum = (pick: (r: TableLoadResult) => number) => loaded.reduce((total, r) => total + pick(r), 0);
  return {
    status: statusOf(loaded.length, failed.length),
    counts: { tables: loaded.length, failed: failed.length, runs: sum((r) => r.runs.length), inserted: sum((r) => r.inserted), updated: sum((r) => r.updated), vanished: sum((r) => r.vanished ?? 0), skippedDifferences: results.reduce((total, r) => total + (r.skippedRuns?.length ?? 0), 0), ...erasureCounts(erasure) },
    ...stepErrors(failed.map((r) => toErrorRecord(r.error ?? 'failed', { table: r.table }))),
    notes: [...(erasure ? describeErasure(erasure) : []), ...results.flatMap((r) => [...(r.warnings ?? []).map((warning) => `warning: ${describeWarning(warning)}`), ...r.drift.map((d) => `${r.table}: ${d}`)])],
    results: results.map((r) => ({
      name: r.table,
      status: r.status,
      counts: { runs: r.runs.length, rowsIn: r.rowsIn, inserted: r.inserted, updated: r.updated, vanished: r.vanished ?? 0, skippedDifferences: r.skippedRuns?.length ?? 0 },
    })),
  };
}

function erasureCounts(erasure: LoadErasure | undefined): Record<string, number> {
  if (erasure === undefined) return {};
  return { forgottenDropped: erasure.dropped.rows, vanishedCleared: [...erasure.vanished.cleared.values()].reduce((sum, n) => sum + n, 0) };
}

/** One line for a load warning: `E_LOAD_DIFFERENCE_BASE: <message>`. */
export function describeWarning(warning: FanlakeError): string {
  return `${warning.code}: ${redact(warning.message)}`;
}

/**
 * Merges every raw run not loaded yet into the warehouse, with the erasure around it. With
 * `pruneRaw` it then removes raw runs older than `raw.retentionDays` (load/prune-raw-runs.ts:
 * never a resource's newest run nor its newest loaded snapshot), counted in the summary;
 * `fanlake run` asks for it, a scheduled job prunes after its whole job instead.
 */
export async function loadStep(context: StepContext, options: { pruneRaw?: boolean } = {}): Promise<Omit<StepSummary, 'step' | 'seconds'>> {
  const { results, erasure } = await loadWithErasure(context.config, context.now, context.warehouse);
  const summary = summarizeLoad(results, erasure);
  if (!options.pruneRaw) return summary;
  const { config } = context;
  try {
    const pruned = await pruneRawRuns({ dataDir: config.dataDir, retentionDays: config['raw.retentionDays'], now: context.now, budget: duckdbBudget(config), instance: context.warehouse });
    const note = pruned.runs > 0 ? [`removed ${pruned.runs} raw run${pruned.runs === 1 ? '' : 's'} older than raw.retentionDays (${(pruned.bytes / 1e6).toFixed(1)} MB)`] : [];
    return { ...summary, counts: { ...summary.counts, prunedRuns: pruned.runs }, notes: [...summary.notes, ...note] };
  } catch (error) {
    // The load is committed; old runs wait for the next run.
    return { ...summary, notes: [...summary.notes, `warning: removing old raw runs failed (the next run tries again): ${redact(errorMessage(error))}`] };
  }
}
