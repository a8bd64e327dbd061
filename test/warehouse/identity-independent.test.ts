import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import { independentIdentities, type IndependentIdentities } from '../../bench/independent-identities/index.mjs';
import { writeExtraction } from '../../bench/independent-identities/load.mjs';
import { readFanIdentityLinks, scoreIdentityLinks, type IdentityScore } from '../../bench/identity-score.mjs';
import { tempDataDir } from '../helpers/cli.js';
import { runCliOk } from './identity-fixture.js';

/**
 * Identity resolution on the independent identity set (bench/independent-identities: faker's
 * Norwegian names and its own noise, nothing of the simulator), at a small size, written as an
 * extraction run and taken in by the real `load` and `build`. The thresholds are issue 14's
 * goals, not figures this code produced.
 */
const GOALS = { precision: 0.995, recall: 0.99 };

let set: IndependentIdentities;
let score: IdentityScore;

beforeAll(async () => {
  set = independentIdentities({ persons: 400, seed: 5 });
  const dataDir = tempDataDir();
  await writeExtraction(dataDir, set.raw);
  const env = { FANLAKE_DATA_DIR: dataDir };
  await runCliOk(['load'], env);
  await runCliOk(['build', '--select', '+fan_identity_links'], env);
  const instance = await DuckDBInstance.create(join(dataDir, 'warehouse.duckdb'), { access_mode: 'READ_ONLY' });
  try {
    const connection = await instance.connect();
    score = scoreIdentityLinks(await readFanIdentityLinks(connection), set.truth);
    connection.closeSync();
  } finally {
    instance.closeSync();
  }
}, 120_000);

describe('identity resolution on the independent identity set', () => {
  it('was scored on every record, and on data carrying every kind of noise, households and namesakes', () => {
    expect(score.missingRecords).toBe(0);
    expect(score.duplicateLinks).toBe(0);
    expect(score.truePairs).toBeGreaterThan(500);
    const kinds = new Set(set.truth.flatMap((record) => record.noise));
    for (const kind of ['diacriticsDropped', 'transliterated', 'middleName', 'firstNameTypo', 'lastNameTypo', 'consonants', 'upperCase', 'lowerCase', 'swapped', 'emailChanged', 'phoneChanged']) {
      expect(kinds, kind).toContain(kind);
    }
    const personOf = new Map(set.truth.map((record) => [`${record.system}:${record.recordId}`, record.personId]));
    const sharedEmails = new Map<string, Set<number>>();
    for (const user of set.raw.ticketing_users ?? []) {
      const email = String(user.email).toLowerCase();
      sharedEmails.set(email, (sharedEmails.get(email) ?? new Set()).add(personOf.get(`ticketing_user:${String(user.id)}`)!));
    }
    // households: one mailbox, two persons
    expect([...sharedEmails.values()].filter((holders) => holders.size > 1).length).toBeGreaterThan(3);
  });

  it(`keeps precision at the goal (>= ${GOALS.precision})`, () => {
    expect(score.precision).toBeGreaterThanOrEqual(GOALS.precision);
  });

  // A known miss (docs/benchmarks.md, docs/decisions.md "Links on a name alone"): about
  // one pair of records in eight shares nothing but a name (a member's name and phone, a
  // profile without phone or birth date). A name alone counts only when it is rare and no
  // system holds it twice; faker's 100 first and 100 last names make most names common enough
  // for two people to share (here 0.867 before that rule, 0.921 with it). This turns red the
  // day the goal is met, so the figures get updated.
  it.fails(`reaches the recall goal (>= ${GOALS.recall})`, () => {
    expect(score.recall).toBeGreaterThanOrEqual(GOALS.recall);
  });
});
