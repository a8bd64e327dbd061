import { loadWarehouse, type TableLoadResult } from '../../load/index.js';
import { warehousePath } from '../../raw-contract/index.js';
import type { StepSummary } from '../run-summary.js';
import { toErrorRecord } from '../../core/error-record.js';
import type { FanlakeError } from '../../core/errors.js';
import { redact } from '../../core/secrets.js';
import { duckdbBudget } from '../../config/duckdb-budget.js';
import { type StepContext, statusOf, stepErrors } from './step.js';

/**
 * The load stage's results as a step: partial when some tables failed and others loaded. A
 * skipped difference is a warning in the notes, with its code, and no failure: the next
 * extract writes its resource whole.
 */
export function summarizeLoad(results: readonly TableLoadResult[]): Omit<StepSummary, 'step' | 'seconds'> {
  const failed = results.filter((r) => r.status === 'failed');
  const loaded = results.filter((r) => r.status === 'ok');
  const sum = (pick: (r: TableLoadResult) => number) => loaded.reduce((total, r) => total + pick(r), 0);
  return {
    status: statusOf(loaded.length, failed.length),
    counts: { tables: loaded.length, failed: failed.length, runs: sum((r) => r.runs.length), inserted: sum((r) => r.inserted), updated: sum((r) => r.updated), vanished: sum((r) => r.vanished ?? 0), skippedDifferences: results.reduce((total, r) => total + (r.skippedRuns?.length ?? 0), 0) },
    ...stepErrors(failed.map((r) => toErrorRecord(r.error ?? 'failed', { table: r.table }))),
    notes: results.flatMap((r) => [...(r.warnings ?? []).map((warning) => `warning: ${describeWarning(warning)}`), ...r.drift.map((d) => `${r.table}: ${d}`)]),
    results: results.map((r) => ({
      name: r.table,
      status: r.status,
      counts: { runs: r.runs.length, rowsIn: r.rowsIn, inserted: r.inserted, updated: r.updated, vanished: r.vanished ?? 0, skippedDifferences: r.skippedRuns?.length ?? 0 },
    })),
  };
}

/** One line for a load warning: `E_LOAD_DIFFERENCE_BASE: <message>`. */
export function describeWarning(warning: FanlakeError): string {
  return `${warning.code}: ${redact(warning.message)}`;
}

/** Merges every raw run not loaded yet into the warehouse. */
export async function loadStep(context: StepContext): Promise<Omit<StepSummary, 'step' | 'seconds'>> {
  const { dataDir } = context.config;
  return summarizeLoad(await loadWarehouse({ dataDir, warehousePath: warehousePath(dataDir), ...duckdbBudget(context.config) }));
}
