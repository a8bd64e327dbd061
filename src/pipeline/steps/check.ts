import { checksFailed, runChecks, type TestResult } from '../../models/index.js';
import type { StepSummary } from '../run-summary.js';
import { type StepContext, STAGE_DATABASE } from './step.js';

/** The check stage's results as a step: failed when an error-level test failed or could not run. */
export function summarizeCheck(results: readonly TestResult[]): Omit<StepSummary, 'step' | 'seconds'> {
  const failing = results.filter((r) => r.status === 'fail' || r.status === 'error');
  const errors = failing.filter((r) => r.severity === 'error');
  const skipped = results.filter((r) => r.status === 'skipped').length;
  return {
    status: checksFailed(results) ? 'failed' : 'ok',
    counts: { passed: results.length - failing.length - skipped, failed: errors.length, warned: failing.length - errors.length, skipped },
    ...(errors[0] ? { error: `${errors[0].name} ${errors[0].status === 'error' ? 'could not run' : `found ${errors[0].failures} failing rows`}` } : {}),
    messages: failing.map((r) => `${r.severity === 'error' ? 'failing' : 'warning'}: ${r.name}${r.message ? ` (${r.message})` : ''}`),
  };
}

/** Runs every data test of sources and models. */
export async function checkStep(context: StepContext): Promise<Omit<StepSummary, 'step' | 'seconds'>> {
  return summarizeCheck(await runChecks({ dataDir: context.config.dataDir, modelsDir: context.modelsDir, now: context.now, ...STAGE_DATABASE }));
}
