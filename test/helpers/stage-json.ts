import { expect } from 'vitest';
import type { ErrorCode } from '../../src/core/error-codes.js';
import { type RunSummary, runSummarySchema, type StepResult, type StepSummary } from '../../src/pipeline/run-summary.js';
import { type CliResult, runCli } from './cli.js';

/** A command run with `--format json`: its document, its (first) step, and that step's parts by name. */
export interface JsonRun extends CliResult {
  document: RunSummary;
  step: StepSummary;
  /** The step's part called `name` (`ticketing.tickets`, `raw.engagement_people`, `marts.dim_fan`, a test name). */
  result(name: string): StepResult | undefined;
}

/** Runs the real CLI with `--format json` and reads what it printed. */
export async function runJson(args: string[], env: Record<string, string>, options: { cwd?: string } = {}): Promise<JsonRun> {
  return readJsonRun(await runCli([...args, '--format', 'json'], env, options));
}

/** Parses what a `--format json` run printed against `runSummarySchema`. */
export function readJsonRun(run: CliResult): JsonRun {
  let document: RunSummary;
  try {
    document = runSummarySchema.parse(JSON.parse(run.stdout));
  } catch (error) {
    throw new Error(`exit ${run.code} without a run summary (${String(error)}):\n${run.stdout}\n${run.stderr}`);
  }
  const step = document.steps[0]!;
  return { ...run, document, step, result: (name) => step.results.find((result) => result.name === name) };
}

/**
 * A run that exited 1 with its part `name` in `status` and exactly one error in the step: the
 * code and retryable flag given, a message containing `message`, and at least `context`.
 */
export function expectOneError(
  run: JsonRun,
  part: { name: string; status: string },
  error: { code: ErrorCode; retryable: boolean; message: string; context: Record<string, unknown> },
): void {
  expect(run.code, run.stderr).toBe(1);
  expect(run.result(part.name)?.status).toBe(part.status);
  expect(run.step.errors).toEqual([{ code: error.code, message: expect.stringContaining(error.message), retryable: error.retryable, context: expect.objectContaining(error.context) }]);
}
