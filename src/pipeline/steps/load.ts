import { loadWarehouse, type TableLoadResult } from '../../load/index.js';
import { warehousePath } from '../../raw-contract/index.js';
import type { StepSummary } from '../run-summary.js';
import { type StepContext, STAGE_DATABASE, statusOf } from './step.js';

/** The load stage's results as a step: partial when some tables failed and others loaded. */
export function summarizeLoad(results: readonly TableLoadResult[]): Omit<StepSummary, 'step' | 'seconds'> {
  const failed = results.filter((r) => r.status === 'failed');
  const loaded = results.filter((r) => r.status === 'ok');
  const sum = (pick: (r: TableLoadResult) => number) => loaded.reduce((total, r) => total + pick(r), 0);
  return {
    status: statusOf(loaded.length, failed.length),
    counts: { tables: loaded.length, failed: failed.length, runs: sum((r) => r.runs.length), inserted: sum((r) => r.inserted), updated: sum((r) => r.updated), vanished: sum((r) => r.vanished ?? 0) },
    ...(failed[0] ? { error: `${failed[0].table}: ${failed[0].error?.message ?? 'failed'}` } : {}),
    messages: [...results.flatMap((r) => r.drift.map((d) => `${r.table}: ${d}`)), ...failed.map((r) => `${r.table}: ${r.error?.message ?? 'failed'}`)],
  };
}

/** Merges every raw run not loaded yet into the warehouse. */
export async function loadStep(context: StepContext): Promise<Omit<StepSummary, 'step' | 'seconds'>> {
  const { dataDir } = context.config;
  return summarizeLoad(await loadWarehouse({ dataDir, warehousePath: warehousePath(dataDir), ...STAGE_DATABASE }));
}
