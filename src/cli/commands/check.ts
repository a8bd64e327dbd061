import type { Json } from '@duckdb/node-api';
import type { Argv } from 'yargs';
import { runChecks } from '../../models/index.js';
import type { TestResult } from '../../models/index.js';
import { summarizeCheck } from '../../pipeline/steps/check.js';
import { stepExitCode } from '../../pipeline/steps/step.js';
import { duckdbBudget } from '../../config/duckdb-budget.js';
import type { CommandModule } from '../command.js';
import { out, table } from '../output.js';
import { type StageFormat, stageDocument, withStageFormat } from '../stage-format.js';

export interface CheckCommandDefaults {
  /** Models root; the package's `sql/` when absent (tests point it at fixtures). */
  modelsDir?: string;
  /** Clock for freshness tests. */
  now?: () => Date;
}

/** `fanlake check`, with the models root and clock injectable for tests. */
export function createCheckCommand(defaults: CheckCommandDefaults = {}): CommandModule<{ format?: StageFormat; all?: boolean }> {
  return {
    command: 'check',
    describe: 'Run the data tests of sources and models; exit 1 when an error-level test fails',
    // Results are stored in meta.check_results for the data-quality report.
    writes: true,
    builder: (yargs: Argv) =>
      withStageFormat(yargs).option('all', {
        alias: 'full',
        type: 'boolean',
        default: false,
        describe:
          'Run every test over whole tables; by default a test whose definition and inputs (the tables it reads) are as at its last run repeats that result, and a test of a model written by key that passed before reads only the rows changed since',
      }) as unknown as Argv<{ format?: StageFormat; all?: boolean }>,

    async run(args, { config }) {
      const startedAt = new Date();
      const results = await runChecks({
        dataDir: config.dataDir,
        modelsDir: defaults.modelsDir,
        now: defaults.now?.(),
        all: args.all,
        retentionDays: config['check.retentionDays'],
        ...duckdbBudget(config),
      });
      const summary = summarizeCheck(results);
      if (args.format === 'json') {
        out.result(JSON.stringify(stageDocument('check', startedAt, summary), null, 2));
        return stepExitCode(summary);
      }
      if (results.length === 0) {
        out.info('no data tests declared');
        return 0;
      }
      out.result(
        table(
          ['test', 'severity', 'status', 'failures', 'read'],
          results.map((r) => [r.name, r.severity, r.status, r.failures, readOf(r)]),
        ),
      );
      const failing = results.filter((r) => r.status === 'fail' || r.status === 'error');
      for (const result of failing) out.result(`\n${details(result)}`);
      const errors = failing.filter((r) => r.severity === 'error').length;
      const skipped = results.filter((r) => r.status === 'skipped').length;
      const passed = results.length - failing.length - skipped;
      out.info(`${passed} passed, ${errors} failed, ${failing.length - errors} warned${skipped ? `, ${skipped} skipped (optional sources not loaded)` : ''}`);
      const carried = results.filter((r) => r.carriedFrom);
      if (carried.length > 0) {
        const from = [...new Set(carried.map((r) => r.carriedFrom!.checkRunId))].sort();
        out.info(`${results.length - carried.length - skipped} ran; ${carried.length} carried from check ${from.join(', ')}: nothing they read changed since (check --all runs every test)`);
      }
      const changedOnly = results.filter((r) => r.changedRowsOnly).length;
      if (changedOnly > 0) out.info(`${changedOnly} read only the rows changed since they last passed (check --all reads whole tables)`);
      return stepExitCode(summary);
    },
  };
}

export const checkCommand = createCheckCommand();

/** What a test read in this check: nothing (its last result carried), the rows changed since it last passed, or all. */
function readOf(result: TestResult): string {
  if (result.status === 'skipped') return '';
  if (result.carriedFrom) return 'carried';
  return result.changedRowsOnly ? 'changed rows' : 'all rows';
}

function details(result: TestResult): string {
  const lines = [`${result.status === 'error' ? 'could not run' : 'failing'}: ${result.name}${result.message ? ` — ${result.message}` : ''}`];
  if (result.sample.length > 0) {
    const columns = [...new Set(result.sample.flatMap((row) => Object.keys(row)))];
    // a test whose rows each name something to fix (an unmapped consent text) shows them whole
    const width = result.show ? Infinity : 40;
    lines.push(table(columns, result.sample.map((row) => columns.map((column) => cell(row[column], width)))));
    if (result.failures > result.sample.length) lines.push(`... ${result.failures - result.sample.length} more`);
  }
  return lines.join('\n');
}

function cell(value: Json | undefined, width: number): string {
  const text = value === undefined ? '' : value === null ? 'null' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}
