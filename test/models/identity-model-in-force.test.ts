import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildModels, type BuildEvent } from '../../src/models/index.js';
import { PARSE_CACHE_FILE } from '../../src/models/parse-cache.js';
import { warehousePath } from '../../src/raw-contract/index.js';
import { REPO, tempDataDir } from '../helpers/cli.js';
import { queryWarehouse } from '../helpers/warehouse.js';
import { clubBackground, writeRawTables } from '../warehouse/identity-fixture.js';

/**
 * The identity model in force stays usable when sql/identity/ changes under it: it predicts
 * under the configuration it was trained with, and the build only says a retrain is due,
 * unless identityAutoRetrain lets it train and apply one itself. A
 * warehouse whose model was stored without its configuration (an older fanlake; here the club
 * model of identity-model-fixture.ts) adopts it as in force when it fits the files.
 */
const SELECT = ['+int_identity_clusters'];

let dataDir: string;
let changedModels: string;
const events: BuildEvent[][] = [];

const build = async (modelsDir?: string, autoRetrain = false) => {
  const seen: BuildEvent[] = [];
  const results = await buildModels({
    dataDir,
    select: SELECT,
    threads: 1,
    ...(modelsDir ? { modelsDir } : {}),
    identityTraining: { mode: 'auto', autoRetrain },
    onEvent: (event) => seen.push(event),
  });
  expect(results.filter((result) => result.error).map((result) => result.error!.message)).toEqual([]);
  events.push(seen);
};

const levels = () => queryWarehouse(dataDir, `select level from macros.identity_comparison_levels() where comparison = 'first_name' order by level_index`);
const fans = () => queryWarehouse(dataDir, 'select record_key, fan_id from intermediate.int_identity_clusters order by record_key');

let levelsBefore: unknown[];
let levelsAfter: unknown[];
let fansBefore: unknown[];
let fansAfter: unknown[];
let levelsRetrained: unknown[];
let inForceBefore: unknown[];
let modelsBefore: unknown[];
let dueChurn: unknown;
let rulesRetrained: Record<string, unknown>[];
let afterTraining: { kept: string; stamps: Record<string, unknown>[] };

// the build after a training finds the trained macros created and parsed as it would create and parse them
const macrosKept = () => (JSON.parse(readFileSync(join(dataDir, PARSE_CACHE_FILE), 'utf8')) as { macros: { key: string } }).macros.key;
const stamps = () => queryWarehouse(dataDir, `select function_name, comment from duckdb_functions() where schema_name = 'macros' order by all`);

beforeAll(async () => {
  dataDir = tempDataDir();
  await writeRawTables(warehousePath(dataDir), { ticketing_users: clubBackground(40) });
  await build();
  levelsBefore = await levels();
  fansBefore = await fans();

  // the files change: first_name loses its level "alike", so every later level's index moves
  changedModels = join(mkdtempSync(join(tmpdir(), 'fanlake-identity-config-')), 'sql');
  cpSync(join(REPO, 'sql'), changedModels, { recursive: true });
  const file = join(changedModels, 'identity', 'comparison_levels.csv');
  writeFileSync(file, readFileSync(file, 'utf8').split('\n').filter((line) => !line.startsWith('first_name,alike,')).join('\n'));
  await build(changedModels);
  levelsAfter = await levels();
  fansAfter = await fans();
  inForceBefore = await queryWarehouse(dataDir, 'select model_version, applied_by from meta.identity_model_in_force');
  modelsBefore = await queryWarehouse(dataDir, 'select count(*)::integer as models, count(definition)::integer as with_definition from meta.identity_models');
  dueChurn = (await queryWarehouse(dataDir, 'select records_moved::integer as moved, retrain_due from meta.identity_fan_churn order by built_at desc limit 1'))[0];
  await build(changedModels, true);
  levelsRetrained = await levels();
  afterTraining = { kept: macrosKept(), stamps: await stamps() };
  rulesRetrained = await queryWarehouse(
    dataDir,
    `select comparison, case comparison when 'birth_date' then macros.identity_birth_dates_tell_apart() else macros.identity_first_names_tell_apart() end as tell_apart, weight
     from macros.identity_model() where comparison in ('birth_date', 'first_name') and level = 'different' order by comparison`,
  );
}, 120_000);

describe('the identity model in force', () => {
  it('adopts the model an older fanlake stored when it fits the configuration', () => {
    expect(inForceBefore).toEqual([{ model_version: 1, applied_by: 'adopted' }]);
    expect(events[0]!.some((event) => event.type === 'identity-trained' || event.type === 'identity-retrain-due')).toBe(false);
    expect(modelsBefore).toEqual([{ models: 1, with_definition: 1 }]);
  });

  it('keeps predicting under its own configuration when the files change, trains nothing and says a retrain is due', () => {
    expect(levelsBefore.map((row) => (row as { level: string }).level)).toContain('alike');
    expect(levelsAfter).toEqual(levelsBefore);
    expect(fansAfter).toEqual(fansBefore);
    const due = events[1]!.find((event) => event.type === 'identity-retrain-due');
    expect(due).toMatchObject({ version: 1, reason: expect.stringContaining('the identity configuration (sql/identity/) changed since version 1 was trained') });
    expect(dueChurn).toMatchObject({ moved: 0, retrain_due: expect.stringContaining('configuration') });
  });

  it('is retrained under the files and put in force by build itself with identityAutoRetrain, reported as applied', async () => {
    const trained = events[2]!.find((event) => event.type === 'identity-trained');
    expect(trained).toMatchObject({ appliedBy: 'autoRetrain', model: { version: 2 }, reason: expect.stringContaining('configuration') });
    expect(levelsRetrained.map((row) => (row as { level: string }).level)).not.toContain('alike');
    const inForce = await queryWarehouse(dataDir, 'select model_version, applied_by from meta.identity_model_in_force order by applied_at');
    expect(inForce.at(-1)).toEqual({ model_version: 2, applied_by: 'autoRetrain' });
    const [churn] = await queryWarehouse(dataDir, 'select model_version, model_applied, retrain_due from meta.identity_fan_churn order by built_at desc limit 1');
    expect(churn).toEqual({ model_version: 2, model_applied: true, retrain_due: null });
  });

  it('leaves the macros a training created, stamped and parsed, to the next build', async () => {
    expect(afterTraining.stamps.filter((row) => typeof row.comment !== 'string' || !row.comment.startsWith('fanlake '))).toEqual([]);
    await build(changedModels, true);
    expect(events[3]!.find((event) => event.type === 'identity-trained')).toBeUndefined();
    expect(await stamps()).toEqual(afterTraining.stamps);
    expect(macrosKept()).toBe(afterTraining.kept);
  });

  it('has the birth-date and first-name rules of the model it put in force: each tells people apart only where it weighs a difference at least 10 bits against', () => {
    const rules = rulesRetrained as { comparison: string; tell_apart: boolean; weight: number }[];
    expect(rules.map((rule) => rule.comparison)).toEqual(['birth_date', 'first_name']);
    for (const { tell_apart: tellApart, weight } of rules) expect(tellApart).toBe(weight <= -10);
  });
});

describe('a model stored when the hash covered the files alone', () => {
  it('is adopted under the hash that covers the level SQL too: no retrain, no failure', async () => {
    const fresh = tempDataDir();
    await writeRawTables(warehousePath(fresh), { ticketing_users: clubBackground(20) });
    const [stored] = await queryWarehouse(fresh, 'select model_version, definition_hash from meta.identity_models');
    const seen: BuildEvent[] = [];
    const results = await buildModels({ dataDir: fresh, select: SELECT, threads: 1, onEvent: (event) => seen.push(event) });
    expect(results.filter((result) => result.error)).toEqual([]);
    expect(seen.filter((event) => event.type === 'identity-trained' || event.type === 'identity-retrain-due')).toEqual([]);
    const after = await queryWarehouse(fresh, 'select model_version, definition_hash from meta.identity_models');
    expect(after).toHaveLength(1);
    expect(after[0]!.model_version).toBe(stored!.model_version);
    expect(after[0]!.definition_hash).not.toBe(stored!.definition_hash);
  });
});
