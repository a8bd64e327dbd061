import type { Json } from '@duckdb/node-api';
import type { Argv } from 'yargs';
import { runChecks } from '../../models/index.js';
import type { TestResult } from '../../models/index.js';
import { summarizeCheck } from '../../pipeline/steps/check.js';
import { stageDatabase, stepExitCode } from '../../pipeline/steps/step.js';
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
export function createCheckCommand(defaults: CheckCommandDefaults = {}): CommandModule<{ format?: StageFormat }> {
  return {
    command: 'check',
    describe: 'Run the data tests of sources and models; exit 1 when an error-level test fails',
    // Results are stored in meta.check_results for the data-quality report.
    writes: true,
    builder: (yargs: Argv) => withStageFormat(yargs),

    async run(args, { config }) {
      const startedAt = new Date();
      const results = await runChecks({
        dataDir: config.dataDir,
        modelsDir: defaults.modelsDir,
        now: defaults.now?.(),
        ...stageDatabase(config),
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
          ['test', 'severity', 'status', 'failures'],
          results.map((r) => [r.name, r.severity, r.status, r.failures]),
        ),
      );
      const failing = results.filter((r) => r.status === 'fail' || r.status === 'error');
      for (const result of failing) out.result(`\n${details(result)}`);
      const errors = failing.filter((r) => r.severity === 'error').length;
      const skipped = results.filter((r) => r.status === 'skipped').length;
      const passed = results.length - failing.length - skipped;
      out.info(`${passed} passed, ${errors} failed, ${failing.length - errors} warned${skipped ? `, ${skipped} skipped (optional sources not loaded)` : ''}`);
      return stepExitCode(summary);
    },
  };
}

export const checkCommand = createCheckCommand();

function details(result: TestResult): string {
  const lines = [`${result.status === 'error' ? 'could not run' : 'failing'}: ${result.name}${result.message ? ` — ${result.message}` : ''}`];
  if (result.sample.length > 0) {
    const columns = [...new Set(result.sample.flatMap((row) => Object.keys(row)))];
    lines.push(table(columns, result.sample.map((row) => columns.map((column) => cell(row[column])))));
    if (result.failures > result.sample.length) lines.push(`... ${result.failures - result.sample.length} more`);
  }
  return lines.join('\n');
}

function cell(value: Json | undefined): string {
  const text = value === undefined ? '' : value === null ? 'null' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}
