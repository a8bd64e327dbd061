import type { Argv } from 'yargs';
import { buildModels, LINEAGE_FILE } from '../../models/index.js';
import { ensureClubDir } from '../../models/club/club-files.js';
import { buildSettingsFrom, IdentityReport, summarizeBuild } from '../../pipeline/steps/build.js';
import { stepExitCode } from '../../pipeline/steps/step.js';
import type { CommandModule } from '../command.js';
import { out, table } from '../output.js';
import { type StageFormat, stageDocument, withStageFormat } from '../stage-format.js';

interface BuildArgs {
  select?: string[];
  'full-refresh': boolean;
  format?: StageFormat;
}

export interface BuildCommandDefaults {
  /** Models root; the package's `sql/` when absent (tests point it at fixtures). */
  modelsDir?: string;
}

/** `fanlake build`, with the models root injectable for tests. */
export function createBuildCommand(defaults: BuildCommandDefaults = {}): CommandModule<BuildArgs> {
  return {
    command: 'build',
    describe: 'Run the SQL models in sql/ in dependency order into the warehouse and write lineage.json',
    writes: true,
    builder: (yargs: Argv) =>
      withStageFormat(yargs)
        .option('select', {
          alias: 's',
          type: 'string',
          array: true,
          describe: 'Only these models: NAME, +NAME (with its parents), NAME+ (with its children), +NAME+',
        })
        .option('full-refresh', { type: 'boolean', default: false, describe: 'Rebuild every model, incremental ones from scratch; without it a model whose SQL, raw inputs and parents\' rows are as at its last build is left as it is' }) as unknown as Argv<BuildArgs>,

    async run(args, { config }) {
      const startedAt = new Date();
      const created = await ensureClubDir(config['club.dir']);
      if (created) out.info(created);
      const identity = new IdentityReport();
      const results = await buildModels({
        dataDir: config.dataDir,
        modelsDir: defaults.modelsDir,
        select: args.select,
        fullRefresh: args['full-refresh'],
        ...buildSettingsFrom(config),
        onEvent: identity.onEvent,
      });
      const built = summarizeBuild(results);
      const summary = { ...built, counts: { ...built.counts, ...identity.counts }, notes: [...identity.notes, ...built.notes] };
      if (args.format === 'json') {
        out.result(JSON.stringify(stageDocument('build', startedAt, summary), null, 2));
        return stepExitCode(summary);
      }
      if (results.length === 0) {
        out.info('no models to build');
        return 0;
      }
      out.result(
        table(
          ['model', 'materialized', 'status', 'rows', 'seconds'],
          results.map((r) => [`${r.schema}.${r.model}`, r.materialized, r.status, r.rows ?? '', Number(r.seconds.toFixed(2))]),
        ),
      );
      for (const r of results) {
        if (r.error) out.error(r.error.message);
        else if (r.status === 'dropped') out.info(`${r.schema}.${r.model} dropped: ${r.reason}`);
        else if (r.reason) out.warn(`${r.schema}.${r.model} skipped: ${r.reason}`);
      }
      for (const note of identity.notes) out.info(note);
      const count = (status: string) => results.filter((r) => r.status === status).length;
      const failed = count('failed');
      const dropped = count('dropped') > 0 ? `, ${count('dropped')} dropped` : '';
      out.info(`${count('ok')} built, ${count('unchanged')} unchanged, ${failed} failed, ${count('skipped')} skipped${dropped}; lineage in ${config.dataDir}/${LINEAGE_FILE}`);
      return stepExitCode(summary);
    },
  };
}

export const buildCommand = createBuildCommand();
