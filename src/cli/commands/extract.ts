import type { Argv } from 'yargs';
import { SOURCES, type SourceName } from '../../extract/run-extraction.js';
import { describeErrorRecord } from '../../core/error-record.js';
import { extractWithTombstones, summarizeExtract } from '../../pipeline/steps/extract.js';
import { describeDropped } from '../../privacy/drop-tombstoned.js';
import { stepExitCode } from '../../pipeline/steps/step.js';
import type { CommandModule } from '../command.js';
import { out, table } from '../output.js';
import { type StageFormat, stageDocument, withStageFormat } from '../stage-format.js';

interface ExtractArgs {
  source?: SourceName;
  resource?: string[];
  'full-refresh': boolean;
  format?: StageFormat;
}

export const extractCommand: CommandModule<ExtractArgs> = {
  command: 'extract',
  describe: 'Page every list endpoint into Parquet under $FANLAKE_DATA_DIR/raw/ (incremental; resumable)',
  writes: true,
  builder: (yargs: Argv) =>
    withStageFormat(yargs)
      .example('$0 extract', 'every configured source, from where the last run stopped')
      .example('$0 extract --source ticketing --resource tickets users', 'two ticketing resources only')
      .example('$0 extract --full-refresh', 're-read the ticketing history from the start date')
      .option('source', { choices: SOURCES, describe: 'Only this source (default: every configured one)' })
      .option('resource', { type: 'string', array: true, describe: 'Only these resources, e.g. tickets user_permissions people' })
      .option('full-refresh', { type: 'boolean', default: false, describe: 'Start over from the start date instead of the stored position' }) as unknown as Argv<ExtractArgs>,

  async run(args, { config }) {
    const startedAt = new Date();
    const run = await extractWithTombstones(config, {
      sources: args.source ? [args.source] : undefined,
      resources: args.resource,
      fullRefresh: args['full-refresh'],
    });
    const { runId, results, skippedSources } = run;
    const summary = summarizeExtract(run);
    if (args.format === 'json') {
      out.result(JSON.stringify(stageDocument('extract', startedAt, summary, runId), null, 2));
      return stepExitCode(summary);
    }
    for (const { source, reason } of skippedSources) out.info(`${source}: skipped (${reason})`);
    if (results.length > 0) {
      out.result(
        table(
          ['resource', 'status', 'rows', 'files', 'quarantined', 'requests', 'retries', 'seconds'],
          results.map((r) => [`${r.source}.${r.resource}`, r.status, r.rows, r.files, r.quarantined, r.requests, r.retries, Number(r.seconds.toFixed(1))]),
        ),
      );
    }
    const say = { ok: out.warn, skipped: out.info, partial: out.warn, failed: out.warn } as const;
    for (const r of results) for (const note of r.notes) say[r.status](`${r.source}.${r.resource}: ${note}`);
    for (const line of describeDropped(run.dropped)) out.warn(line);
    for (const error of summary.errors) out.error(describeErrorRecord(error));
    out.info(`run ${runId}`);
    return stepExitCode(summary);
  },
};
