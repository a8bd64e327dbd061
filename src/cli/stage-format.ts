import type { Argv } from 'yargs';
import { newRunId } from '../raw-contract/index.js';
import { runFailed, type RunSummary, type StepName, type StepSummary } from '../pipeline/run-summary.js';

/** Output formats of the stage commands: their own table, or the summary `run --format json` prints. */
export const STAGE_FORMATS = ['table', 'json'] as const;
export type StageFormat = (typeof STAGE_FORMATS)[number];

/** Adds `--format table|json` to a stage command. */
export function withStageFormat<A>(yargs: Argv<A>): Argv<A & { format: StageFormat }> {
  return yargs.option('format', {
    choices: STAGE_FORMATS,
    default: 'table' as StageFormat,
    describe: 'Result format: a table, or one JSON document in the shape of `run --format json` with this one step',
  }) as unknown as Argv<A & { format: StageFormat }>;
}

/**
 * A stage command's outcome as a run summary with a single step, so scripts read every
 * command the same way (schema: `runSummarySchema`).
 */
export function stageDocument(step: StepName, startedAt: Date, summary: Omit<StepSummary, 'step' | 'seconds'>, runId = newRunId(startedAt)): RunSummary {
  const finishedAt = new Date();
  const stepSummary: StepSummary = { step, ...summary, seconds: Number(((finishedAt.getTime() - startedAt.getTime()) / 1000).toFixed(2)) };
  return {
    runId,
    status: runFailed([stepSummary]) ? 'failed' : 'ok',
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    steps: [stepSummary],
    reports: [],
  };
}
