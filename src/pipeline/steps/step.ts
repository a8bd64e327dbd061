import type { DuckDBInstance } from '@duckdb/node-api';
import type { Config } from '../../config/load-config.js';
import { describeErrorRecord, type ErrorRecord, toErrorRecord } from '../../core/error-record.js';
import { UsageError } from '../../core/errors.js';
import type { StepName, StepStatus, StepSummary } from '../run-summary.js';

/** What every step of a run is given. */
export interface StepContext {
  readonly config: Config;
  /** Models root; the package's `sql/` when absent (tests point it at fixtures). */
  readonly modelsDir?: string;
  /** Clock of freshness checks and report timestamps (tests pin it). */
  readonly now?: Date;
  /**
   * The warehouse, open for the steps that share it (`run`'s load, build, check and reports); each step opens
   * and closes it itself when absent. The steps leave it open: its owner closes it.
   */
  readonly warehouse?: DuckDBInstance;
}

/** Status of a stage from its parts: all good, none good, or some of each. */
export function statusOf(good: number, bad: number): StepStatus {
  if (bad === 0) return 'ok';
  return good === 0 ? 'failed' : 'partial';
}

/** The exit code a stage command returns for its summary (contract: 1 for failed or partial). */
export function stepExitCode(summary: Pick<StepSummary, 'status'>): 0 | 1 {
  return summary.status === 'failed' || summary.status === 'partial' ? 1 : 0;
}

/**
 * Runs one step and times it. A stage that throws becomes a failed step, so later
 * independent work can still be reported; bad usage still ends the run (exit 2).
 */
export async function timedStep(step: StepName, fn: () => Promise<Omit<StepSummary, 'step' | 'seconds'>>): Promise<StepSummary> {
  const started = performance.now();
  try {
    const summary = await fn();
    return { step, ...summary, seconds: elapsed(started) };
  } catch (error) {
    if (error instanceof UsageError) throw error;
    return { step, status: 'failed', counts: {}, seconds: elapsed(started), ...stepErrors([toErrorRecord(error)]), notes: [], results: [] };
  }
}

/** A step's errors, and the first of them in words for tables and alerts. */
export function stepErrors(errors: readonly ErrorRecord[]): Pick<StepSummary, 'errors' | 'error'> {
  return { errors: [...errors], ...(errors[0] ? { error: describeErrorRecord(errors[0]) } : {}) };
}

function elapsed(started: number): number {
  return Number(((performance.now() - started) / 1000).toFixed(2));
}
