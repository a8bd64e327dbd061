import type { Argv } from 'yargs';
import { buildModels } from '../../models/index.js';
import { ensureClubDir } from '../../models/club/club-files.js';
import { explainPair, formatExplanation } from '../../models/identity-model/explain.js';
import type { StoredModel } from '../../models/identity-model/store.js';
import { buildSettingsFrom, summarizeBuild } from '../../pipeline/steps/build.js';
import { stepExitCode } from '../../pipeline/steps/step.js';
import { withWarehouseReader } from '../../warehouse/warehouse.js';
import { UsageError } from '../../core/errors.js';
import type { CommandModule } from '../command.js';
import { out, table } from '../output.js';
import { duckdbBudget } from '../../config/duckdb-budget.js';

const ACTIONS = ['train', 'explain'] as const;

interface IdentityArgs {
  action: (typeof ACTIONS)[number];
  records?: string[];
}

/** `fanlake identity train` and `fanlake identity explain RECORD RECORD`. */
export const identityCommand: CommandModule<IdentityArgs> = {
  command: 'identity <action> [records..]',
  describe: 'The identity model: train it again on the records as they are (train), or say why two records are or are not one fan (explain RECORD RECORD)',
  writes: (args) => args.action === 'train',
  epilogue: 'Exit status: 0 done, 1 a failure, 2 bad usage (unknown records, a malformed model configuration).',
  builder: (yargs: Argv) =>
    yargs
      .positional('action', { choices: ACTIONS, describe: 'train: estimate u, m and the prior again and store the next model version; explain: compare two records comparison by comparison' })
      .positional('records', { type: 'string', array: true, describe: 'explain: two record keys, system:record_id (ticketing_user:101 engagement_customer_profile:2001)' })
      .example('$0 identity train', 'train on the records loaded, then build the links with the new model')
      .example('$0 identity explain ticketing_user:101 engagement_customer_profile:2001', 'the waterfall of weights behind a pair') as unknown as Argv<IdentityArgs>,

  async run(args, { config }) {
    if (args.action === 'explain') {
      const records = args.records ?? [];
      if (records.length !== 2) throw new UsageError(`identity explain takes two record keys, not ${records.length}`);
      const explained = await withWarehouseReader(config.dataDir, (connection) => explainPair(connection, records[0]!, records[1]!), duckdbBudget(config));
      out.result(formatExplanation(explained));
      return 0;
    }
    if ((args.records ?? []).length > 0) throw new UsageError('identity train takes no records');
    const created = await ensureClubDir(config['club.dir']);
    if (created) out.info(created);
    let trained: StoredModel | undefined;
    const results = await buildModels({
      dataDir: config.dataDir,
      select: ['+int_identity_pairs'],
      identityTraining: 'always',
      ...buildSettingsFrom(config),
      onEvent: (event) => {
        if (event.type === 'identity-trained') trained = event.model;
      },
    });
    const summary = summarizeBuild(results);
    for (const result of results) if (result.error) out.error(result.error.message);
    if (!trained) {
      out.error('the identity model was not trained: the models it is trained on did not build');
      return stepExitCode(summary) || 1;
    }
    out.result(
      table(
        ['comparison', 'level', 'm', 'u', 'weight'],
        trained.levels
          .filter((level) => level.levelIndex > 0)
          .map((level) => [level.comparison, level.level, level.m!.toPrecision(3), level.u!.toPrecision(3), Math.log2(level.m! / level.u!).toFixed(2)]),
      ),
    );
    out.info(
      `identity model version ${trained.version} trained on ${trained.records} records: prior ${trained.prior.toPrecision(3)} (${trained.priorPairs} pairs the deterministic rules found), u from ${trained.uSamplePairs} random pairs; the next build links with it`,
    );
    return stepExitCode(summary);
  },
};
