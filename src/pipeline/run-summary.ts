import * as z from 'zod';
import { errorRecordSchema } from '../core/error-record.js';

/** The steps of `fanlake run`, in order. */
export const STEP_NAMES = ['extract', 'load', 'build', 'check', 'report'] as const;
export type StepName = (typeof STEP_NAMES)[number];

/**
 * `ok`; `partial`: some of it failed after retries, the rest is usable (exit 1);
 * `failed`: nothing of it is usable (exit 1); `skipped`: not run (see `reason`).
 */
export const STEP_STATUSES = ['ok', 'partial', 'failed', 'skipped'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

/**
 * One part of a step: a resource of extract, a table of load, a model of build, a test of
 * check; named as the stage's table names it (`ticketing.tickets`, `raw.ticketing_tickets`).
 */
export const stepResultSchema = z.object({
  name: z.string(),
  /** The stage's own status word: `ok`/`partial`/`failed`/`skipped`, `unchanged` for a model, `pass`/`fail`/`error` for a test. */
  status: z.string(),
  /** Named counts, e.g. `{ rows: 120, quarantined: 2 }`. */
  counts: z.record(z.string(), z.number()),
  /** A data test's level, `error` or `warn`. */
  severity: z.string().optional(),
  /** Why it was skipped. */
  reason: z.string().optional(),
  /** Seconds it took, where the stage times its parts (a model of build). */
  seconds: z.number().nonnegative().optional(),
});
export type StepResult = z.infer<typeof stepResultSchema>;

/** The outcome of one step: what a table row or a JSON consumer needs, nothing stage-specific. */
export const stepSummarySchema = z.object({
  step: z.enum(STEP_NAMES),
  status: z.enum(STEP_STATUSES),
  /** Named counts, e.g. `{ resources: 12, rows: 3400 }` for extract; empty when skipped. */
  counts: z.record(z.string(), z.number()),
  seconds: z.number().nonnegative(),
  /** Why it was skipped, e.g. `extract failed`. */
  reason: z.string().optional(),
  /** The first error, in words a user can act on (secrets masked). */
  error: z.string().optional(),
  /** Every error of the step, each with its code, retryable flag and context (the part it concerns). */
  errors: z.array(errorRecordSchema),
  /** Warnings and notes worth reading that are not errors, one line each. */
  notes: z.array(z.string()),
  /** The step's parts and how each went; empty for a step that did not run. */
  results: z.array(stepResultSchema),
});
export type StepSummary = z.infer<typeof stepSummarySchema>;

/**
 * What `fanlake run --format json` prints and what a scheduled job records: one document per
 * run. Later stage commands print theirs in the same shape with a single step.
 */
export const runSummarySchema = z.object({
  /** The extraction's run id when extract ran, else an id of the same form for this run. */
  runId: z.string(),
  status: z.enum(['ok', 'failed']),
  startedAt: z.iso.datetime(),
  finishedAt: z.iso.datetime(),
  steps: z.array(stepSummarySchema),
  /** Rendered reports; `personalData` decides whether a delivery may attach them. */
  reports: z.array(
    z.object({
      name: z.string(),
      status: z.enum(['ok', 'failed']),
      dir: z.string().optional(),
      personalData: z.boolean(),
      error: z.string().optional(),
    }),
  ),
});
export type RunSummary = z.infer<typeof runSummarySchema>;

/** A run failed when any step failed or was partial: exit 1, and a scheduled job alerts. */
export function runFailed(steps: readonly StepSummary[]): boolean {
  return steps.some((step) => step.status === 'failed' || step.status === 'partial');
}

/** The first error of a run, for alerts: `<step>: <error>`. */
export function firstError(summary: RunSummary): string | undefined {
  const step = summary.steps.find((s) => s.error !== undefined);
  return step ? `${step.step}: ${step.error}` : undefined;
}
