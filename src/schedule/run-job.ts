import type { Config } from '../config/load-config.js';
import { redact } from '../core/secrets.js';
import { errorMessage, FanlakeError } from '../core/errors.js';
import { acquireWriterLock, LOCK_ERROR_CODES, type WriterLock } from '../core/writer-lock.js';
import { newRunId } from '../raw-contract/index.js';
import { pruneRawRuns, type PruneResult } from '../load/prune-raw-runs.js';
import type { ReportResult } from '../reports/index.js';
import { type PipelineResult, runPipeline } from '../pipeline/run-pipeline.js';
import { firstError, type RunSummary, type StepSummary } from '../pipeline/run-summary.js';
import type { Schedule } from './schedule-config.js';
import type { DeliveryRecord, LogEntry } from './schedule-log.js';
import { duckdbBudget } from '../config/duckdb-budget.js';

/** A finished job, as its digest or alert tells it. */
export interface JobResult {
  schedule: string;
  slot: Date;
  summary: RunSummary;
  reports: readonly ReportResult[];
  /** Whether the schedule allows reports showing personal data to be attached or linked. */
  personalData: boolean;
  /** Why the job failed when it ended before a summary could say (e.g. a bad report definition). */
  error?: string;
}

export interface JobContext {
  config: Config;
  /** Models root; the package's `sql/` when absent. */
  modelsDir?: string;
  /** The scheduler's first stop: the running step finishes, the rest is skipped. */
  stop: AbortSignal;
  /**
   * Delivers a finished job's digest or alert where its schedule says (delivery/deliver.ts
   * `delivererFor`), one record per channel; `signal` cuts retries short.
   */
  deliver: (job: JobResult, signal: AbortSignal) => Promise<DeliveryRecord[]>;
  onNotice?: (message: string) => void;
  onStep?: (step: StepSummary) => void;
}

/**
 * One scheduled job: waits for the writer lock up to `schedule.lockWaitSeconds` (else the slot
 * is `missed`; a lock that fails otherwise fails the job), runs the pipeline, removes old raw
 * runs, releases the lock, then delivers the digest or the alert. Never throws: everything
 * ends up in the returned log entry.
 */
export async function runScheduledJob(schedule: Schedule, slot: Date, slots: number, context: JobContext): Promise<LogEntry> {
  const { config } = context;
  const base = { schedule: schedule.name, slot: slot.toISOString(), start: new Date().toISOString(), ...(slots > 1 ? { slots } : {}) };

  let lock: WriterLock | undefined;
  let thrown: string | undefined;
  try {
    lock = await acquireWriterLock(config.dataDir, {
      command: `schedule ${schedule.name}`,
      waitSeconds: config['schedule.lockWaitSeconds'],
      staleSeconds: config['lock.staleSeconds'],
      onNotice: context.onNotice,
      signal: context.stop,
    });
  } catch (error) {
    const held = error instanceof FanlakeError && error.code === LOCK_ERROR_CODES.held;
    // Another writer is the scheduler's everyday business (a missed slot, made up later); any
    // other reason (an unreadable lock file, a data directory that cannot be written) needs a
    // person, so it fails the job and alerts like a failed step.
    if (held) return { ...base, end: new Date().toISOString(), outcome: context.stop.aborted ? 'stopped' : 'missed', error: redact(errorMessage(error)) };
    thrown = `cannot take the writer lock: ${redact(errorMessage(error))}`;
  }
  // The job starts once it has the lock; a wait before is not part of it.
  const start = new Date();
  base.start = start.toISOString();

  let result: PipelineResult | undefined;
  let pruned: PruneResult | undefined;
  if (lock) {
    try {
      result = await runPipeline({
        config,
        modelsDir: context.modelsDir,
        steps: schedule.job === 'reports' ? ['report'] : undefined,
        sources: schedule.sources,
        reports: schedule.reports,
        params: schedule.params,
        strict: schedule.strict,
        stop: context.stop,
        onStep: context.onStep,
      });
      // Housekeeping after every job, under the same lock, so it never races a load.
      pruned = await pruneRawRuns({ dataDir: config.dataDir, retentionDays: config['raw.retentionDays'], budget: duckdbBudget(config) }).catch((error: unknown) => {
        context.onNotice?.(`housekeeping failed: ${redact(errorMessage(error))}`);
        return undefined;
      });
    } catch (error) {
      thrown = redact(errorMessage(error));
    } finally {
      await lock.release();
    }
  }

  const summary = result?.summary ?? { runId: newRunId(start), status: 'failed' as const, startedAt: start.toISOString(), finishedAt: new Date().toISOString(), steps: [], reports: [] };
  const stopped = summary.status === 'ok' && summary.steps.some((s) => s.reason === 'stopped');
  const outcome = stopped ? 'stopped' : summary.status;
  const error = thrown ?? firstError(summary);
  const deliveries = stopped
    ? []
    : await context.deliver({ schedule: schedule.name, slot, summary, reports: result?.reports ?? [], personalData: schedule.personalData, error: thrown }, context.stop);
  return {
    ...base,
    end: new Date().toISOString(),
    outcome,
    runId: summary.runId,
    ...(error ? { error } : {}),
    ...(deliveries.length > 0 ? { deliveries } : {}),
    ...(pruned && pruned.runs > 0 ? { pruned } : {}),
  };
}
