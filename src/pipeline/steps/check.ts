import { checksFailed, runChecks, type TestResult } from '../../models/index.js';
import { diagnoseClub, doctorVerdict } from '../../models/club/club-doctor.js';
import type { StepSummary } from '../run-summary.js';
import { CODE } from '../../core/error-codes.js';
import { type ErrorRecord, toErrorRecord } from '../../core/error-record.js';
import { FanlakeError } from '../../core/errors.js';
import { duckdbBudget } from '../../config/duckdb-budget.js';
import { type StepContext, stepErrors } from './step.js';

/** The check stage's results as a step: failed when an error-level test failed or could not run. */
export function summarizeCheck(results: readonly TestResult[]): Omit<StepSummary, 'step' | 'seconds'> {
  const failing = results.filter((r) => r.status === 'fail' || r.status === 'error');
  const errors = failing.filter((r) => r.severity === 'error');
  const skipped = results.filter((r) => r.status === 'skipped').length;
  const carried = results.filter((r) => r.carriedFrom).length;
  return {
    status: checksFailed(results) ? 'failed' : 'ok',
    counts: { passed: results.length - failing.length - skipped, failed: errors.length, warned: failing.length - errors.length, skipped, carried },
    ...stepErrors(errors.map(testError)),
    notes: failing.filter((r) => r.severity !== 'error').map((r) => `warning: ${r.name}${r.message ? ` (${r.message})` : ''}`),
    results: results.map((r) => ({
      name: r.name,
      status: r.status,
      severity: r.severity,
      counts: { failures: r.failures },
      ...(r.carriedFrom ? { reason: `carried from check ${r.carriedFrom.checkRunId}: nothing it reads changed since` } : {}),
      ...(r.changedRowsOnly ? { reason: 'read only the rows changed since it last passed' } : {}),
    })),
  };
}

/** An error-level test that failed or could not run, as an error record naming the test. */
function testError(result: TestResult): ErrorRecord {
  const where = { test: result.name, ...(result.target ? { model: result.target } : {}) };
  if (result.status === 'error') return toErrorRecord(result.error ?? new FanlakeError(CODE.E_TEST_BROKEN, `${result.name} could not run${result.message ? `: ${result.message}` : ''}`), where);
  const found = `${result.name} found ${result.failures} failing ${result.failures === 1 ? 'row' : 'rows'}${result.message ? ` (${result.message})` : ''}${result.show ? listed(result) : ''}`;
  return toErrorRecord(new FanlakeError(CODE.E_TEST_FAILED, found), where);
}

/** A test whose every failing row names something to fix (an unmapped code) lists them: `run` shows no tables. */
function listed(result: TestResult): string {
  const cell = (value: unknown) => (value === null ? '-' : /\s/.test(String(value)) ? JSON.stringify(String(value)) : String(value));
  const rows = result.sample.map((row) => Object.values(row).map(cell).join(' '));
  const more = result.failures > rows.length ? `; ... ${result.failures - rows.length} more` : '';
  return `: ${rows.join('; ')}${more}`;
}

/** Runs the data tests of what changed since the last check (every test with `all`), carrying the others' last results. */
export async function checkStep(context: StepContext, options: { all?: boolean } = {}): Promise<Omit<StepSummary, 'step' | 'seconds'>> {
  const instance = context.warehouse === undefined ? {} : { instance: context.warehouse };
  const summary = summarizeCheck(await runChecks({ dataDir: context.config.dataDir, modelsDir: context.modelsDir, now: context.now, all: options.all, retentionDays: context.config['check.retentionDays'], ...duckdbBudget(context.config), ...instance }));
  // The doctor's verdict on the club's mappings follows the checks (nothing to say before a build).
  const diagnosis = await diagnoseClub({ dataDir: context.config.dataDir, clubDir: context.config['club.dir'], ...instance }).catch(() => undefined);
  return diagnosis ? { ...summary, notes: [...summary.notes, doctorVerdict(diagnosis)] } : summary;
}
