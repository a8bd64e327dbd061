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
