import type { Argv } from 'yargs';
import { SOURCES, type SourceName } from '../../extract/run-extraction.js';
import { describeErrorRecord } from '../../core/error-record.js';
import { formatCounts } from '../../pipeline/format-summary.js';
import { runPipeline } from '../../pipeline/run-pipeline.js';
import { parseParamArgs } from '../../reports/index.js';
import type { CommandModule } from '../command.js';
import { out, table } from '../output.js';

interface RunArgs {
  source?: SourceName;
  resource?: string[];
  'full-refresh': boolean;
  report?: string[];
  param?: string[];
  strict: boolean;
  format: 'table' | 'json';
}

export interface RunCommandDefaults {
  /** Models root; the package's `sql/` when absent (tests point it at fixtures). */
  modelsDir?: string;
}

/** `fanlake run`, with the models root injectable for tests. */
export function createRunCommand(defaults: RunCommandDefaults = {}): CommandModule<RunArgs> {
  return {
    command: 'run',
    describe: 'Extract, load, build, check and report in one go, under one writer lock; prints one summary',
    writes: true,
    builder: (yargs: Argv) =>
      yargs
        .example('$0 run', 'the whole job for every configured source and every report')
        .example('$0 run --source ticketing --report match-day --format json', 'one source, one report, a JSON summary')
        .option('source', { choices: SOURCES, describe: 'Only this source (default: every configured one)' })
        .option('resource', { type: 'string', array: true, describe: 'Only these resources, e.g. tickets people' })
        .option('full-refresh', { type: 'boolean', default: false, describe: 'Extract from the start date and rebuild incremental models' })
        .option('report', { type: 'string', array: true, describe: 'Only these reports (default: all)' })
        .option('param', { type: 'string', array: true, describe: 'Report parameter NAME=VALUE (repeatable)' })
        .option('strict', { type: 'boolean', default: false, describe: 'Failed error-level checks stop the reports too' })
        .option('format', { choices: ['table', 'json'] as const, default: 'table' as const, describe: 'Summary format' }) as unknown as Argv<RunArgs>,

    async run(args, { config }) {
      const { summary } = await runPipeline({
        config,
        modelsDir: defaults.modelsDir,
        sources: args.source ? [args.source] : undefined,
        resources: args.resource,
        fullRefresh: args['full-refresh'],
        reports: args.report,
        params: args.param ? parseParamArgs(args.param) : undefined,
        strict: args.strict,
        // Without a schedule nothing else removes old raw runs.
        pruneRaw: true,
        onStep: (step) => out.info(`${step.step}: ${step.status}${step.reason ? ` (${step.reason})` : ''}`),
      });
      if (args.format === 'json') out.result(JSON.stringify(summary, null, 2));
      else {
        out.result(
          table(
            ['step', 'status', 'counts', 'seconds'],
            summary.steps.map((s) => [s.step, s.status === 'skipped' ? `skipped: ${s.reason ?? ''}` : s.status, formatCounts(s.counts), s.seconds]),
          ),
        );
        for (const report of summary.reports) out.result(`report ${report.name}: ${report.status}${report.dir ? ` ${report.dir}` : ''}`);
        for (const step of summary.steps) for (const note of step.notes) out.warn(`${step.step}: ${note}`);
        for (const step of summary.steps) for (const error of step.errors) out.error(`${step.step}: ${describeErrorRecord(error)}`);
        // A step that failed as a whole (no parts) still says why.
        for (const step of summary.steps) if (step.error && step.errors.length === 0) out.error(`${step.step}: ${step.error}`);
        out.info(`run ${summary.runId}: ${summary.status}`);
      }
      return summary.status === 'ok' ? 0 : 1;
    },
  };
}

export const runCommand = createRunCommand();
