import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { withConnection } from '../../src/core/duckdb.js';
import { readIdentityModelConfig } from '../../src/models/identity-model/config.js';
import type { StoredModel } from '../../src/models/identity-model/store.js';
import { trainIdentityModel } from '../../src/models/identity-model/train.js';
import { trainingGaps } from '../../src/models/identity-model/training-gaps.js';
import { buildModels } from '../../src/models/index.js';
import { warehousePath } from '../../src/raw-contract/index.js';
import { REPO, tempDataDir } from '../helpers/cli.js';
import { clubBackground, writeRawTables } from './identity-fixture.js';

/**
 * Training on a club of 40 users, 10 of them with a customer profile of the same e-mail, and no
 * birth date or address anywhere: u of an exact e-mail match from the values' frequencies (a
 * random sample of a large club never sees one), and the comparisons without u evidence
 * reported as untrained and weighing nothing, not given u = 0.5.
 */
let model: StoredModel;

beforeAll(async () => {
  const dataDir = tempDataDir();
  const users = clubBackground(40);
  const profiles = users.slice(0, 10).map((user, at) => ({ id: String(5000 + at), type: 'customerProfiles', firstName: user.name_first, lastName: user.name_last, email: user.email }));
  await writeRawTables(warehousePath(dataDir), { ticketing_users: users, engagement_customer_profiles: profiles });
  const results = await buildModels({ dataDir, select: ['+int_identity_comparables'], threads: 1 });
  expect(results.filter((result) => result.error).map((result) => result.error!.message)).toEqual([]);
  const config = (await readIdentityModelConfig(join(REPO, 'sql')))!;
  model = await withConnection(warehousePath(dataDir), (connection) => trainIdentityModel(connection, config));
});

const levelOf = (comparison: string, level: string) => model.levels.find((known) => known.comparison === comparison && known.level === level)!;

describe('identity model training', () => {
  it('counts u of an exact e-mail match from the values: 10 pairs of 50 records of different entities sharing one', () => {
    const exact = levelOf('email', 'exact');
    expect(exact.uPairs).toBe(10);
    expect(exact.u).toBeCloseTo(10 / ((50 * 49) / 2), 12);
    const email = model.levels.filter((level) => level.comparison === 'email' && level.levelIndex > 0);
    expect(email.reduce((sum, level) => sum + level.u!, 0)).toBeCloseTo(1, 12);
  });

  it('gives every trained comparison m adding up to 1', () => {
    for (const comparison of ['first_name', 'last_name', 'email']) {
      const levels = model.levels.filter((level) => level.comparison === comparison && level.levelIndex > 0);
      expect(levels.reduce((sum, level) => sum + level.m!, 0), comparison).toBeCloseTo(1, 9);
    }
  });

  it('weighs a comparison without u evidence at nothing, and says so', () => {
    for (const level of model.levels.filter((known) => known.comparison === 'birth_date' && known.levelIndex > 0)) expect(level.u).toBe(level.m);
    expect(trainingGaps(model)).toEqual(expect.arrayContaining([expect.stringMatching(/^birth_date: u not trained/), expect.stringMatching(/^address: u not trained/)]));
  });
});

describe('identity model training on a club larger than its u sample', () => {
  /** The model trained on a fresh warehouse of `users`, its records stored in key order or the reverse. */
  const trainedOn = async (users: Record<string, unknown>[], order: 'asc' | 'desc') => {
    const dataDir = tempDataDir();
    await writeRawTables(warehousePath(dataDir), { ticketing_users: users });
    await buildModels({ dataDir, select: ['+int_identity_comparables'] });
    const config = (await readIdentityModelConfig(join(REPO, 'sql')))!;
    return withConnection(warehousePath(dataDir), async (connection) => {
      // the same rows in another physical order, as merges and rewrites leave them
      await connection.run(`create or replace table intermediate.int_identity_records as select * from intermediate.int_identity_records order by record_key ${order}`);
      return trainIdentityModel(connection, config);
    });
  };

  it('draws the same records whatever order they are stored in, so the same data trains the same weights', async () => {
    // 900 users: more than the 708 records whose pairs give u (u_sample_pairs)
    const users = clubBackground(900);
    const [forward, backward] = [await trainedOn(users, 'asc'), await trainedOn(users, 'desc')];
    const weights = (trained: StoredModel) => trained.levels.map((level) => [level.comparison, level.level, level.m, level.u, level.uPairs]);
    expect(weights(backward)).toEqual(weights(forward));
    expect(forward.levels.some((level) => level.comparison === 'first_name' && level.levelIndex > 0 && (level.uPairs ?? 0) > 0)).toBe(true);
  });
});
