import type { Argv } from 'yargs';
import { buildModels } from '../../models/index.js';
import { ensureClubDir } from '../../models/club/club-files.js';
import { explainPair, formatExplanation } from '../../models/identity-model/explain.js';
import { putInForce } from '../../models/identity-model/in-force.js';
import { previewCandidate } from '../../models/identity-model/preview.js';
import { trainingGaps } from '../../models/identity-model/training-gaps.js';
import { buildSettingsFrom, IdentityReport, summarizeBuild } from '../../pipeline/steps/build.js';
import { withConnection } from '../../core/duckdb.js';
import { warehousePath } from '../../raw-contract/index.js';
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
  apply: boolean;
}

/** `fanlake identity train` and `fanlake identity explain RECORD RECORD`. */
export const identityCommand: CommandModule<IdentityArgs> = {
  command: 'identity <action> [records..]',
  describe: 'The identity model: train a new version on the records as they are and show what it would change, --apply to put it in force (train), or say why two records are or are not one fan (explain RECORD RECORD)',
  writes: (args) => args.action === 'train',
  epilogue: 'Exit status: 0 done, 1 a failure, 2 bad usage (unknown records, a malformed model configuration).',
  builder: (yargs: Argv) =>
    yargs
      .positional('action', { choices: ACTIONS, describe: 'train: estimate u, m and the prior again, store the next model version and list the fan_ids it would move; explain: compare two records comparison by comparison' })
      .positional('records', { type: 'string', array: true, describe: 'explain: two record keys, system:record_id (ticketing_user:101 engagement_customer_profile:2001)' })
      .option('apply', { type: 'boolean', default: false, describe: 'train: put the new version in force and build, moving exactly the fan_ids listed' })
      .example('$0 identity train', 'train a candidate on the records loaded and list the fans it would merge or split, changing no fan_id')
      .example('$0 identity train --apply', 'put it in force and build: the listed records move to their new fans')
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
    const { identityTraining: _, identityChurnWarnShare, ...settings } = buildSettingsFrom(config);
    const preview = await previewCandidate({ dataDir: config.dataDir, ...settings });
    const { model, churn } = preview;
    out.result(
      table(
        ['comparison', 'level', 'm', 'u', 'weight'],
        model.levels
          .filter((level) => level.levelIndex > 0)
          .map((level) => [level.comparison, level.level, level.mSessions === 0 ? 'untrained' : level.m!.toPrecision(3), level.uPairs === 0 && level.u === level.m ? 'untrained' : level.u!.toPrecision(3), Math.log2(level.m! / level.u!).toFixed(2)]),
      ),
    );
    for (const gap of trainingGaps(model)) out.warn(`not trained: ${gap}`);
    out.info(
      `identity model version ${model.version} ${preview.reused ? 'as trained before on these records' : 'trained'} on ${model.records} records: prior ${model.prior.toPrecision(3)} (${model.priorPairs} pairs the deterministic rules found), u from ${model.uSamplePairs} random pairs`,
    );
    out.result(
      `\nagainst the fans now: ${churn.fansBefore} fans → ${churn.fansAfter}; ${churn.fansMerged} would merge, ${churn.fansSplit} would split; ${churn.recordsMoved} of ${churn.recordsBefore} records' fan_id would move`,
    );
    if (churn.examples.length > 0) {
      out.result(table(['record', 'fan_id now', 'fan_id after', 'how'], churn.examples.map((moved) => [moved.recordKey, moved.fanBefore, moved.fanAfter, moved.how])));
    }
    out.result(`every record that would move: ${preview.movedFile}`);
    if (!args.apply) {
      out.info(`version ${model.version} is stored, not in force: no fan_id changed. fanlake identity train --apply puts it in force and moves exactly these`);
      return 0;
    }
    await withConnection(warehousePath(config.dataDir), (connection) => putInForce(connection, model.version, 'identity train --apply', `${churn.recordsMoved} records' fan_id listed to move`), duckdbBudget(config));
    out.info(`identity model version ${model.version} is in force; building`);
    const identity = new IdentityReport();
    const results = await buildModels({ dataDir: config.dataDir, ...settings, identityChurnWarnShare, onEvent: identity.onEvent });
    const summary = summarizeBuild(results);
    for (const result of results) if (result.error) out.error(result.error.message);
    for (const note of identity.notes) out.info(note);
    return stepExitCode(summary);
  },
};
