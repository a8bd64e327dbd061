import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import { independentIdentities, type IndependentIdentities } from '../../bench/independent-identities/index.mjs';
import { writeExtraction } from '../../bench/independent-identities/load.mjs';
import { readFanIdentityLinks, readIdentityEvidence, scoreIdentityLinks, scoreShortForms, scoreTwins, type IdentityScore } from '../../bench/identity-score.mjs';
import { runCli, tempDataDir } from '../helpers/cli.js';
import { runCliOk } from './identity-fixture.js';

/**
 * Identity resolution on the independent identity set (bench/independent-identities: faker's
 * Norwegian names and its own noise, nothing of the simulator), at the size of a small club
 * (500 persons), written as an extraction run and taken in by the real `load` and `build`, which
 * trains the identity model on it. The thresholds are the identity goals, not figures
 * this code produced.
 */
const GOALS = { precision: 0.995, recall: 0.99 };
/** Just below the recall measured on this set (500 persons, seed 5): 0.8455 (0.8440 before the level name_part, 0.8935 before a share of people went by a nickname in one system); builds vary by a few pairs. */
const RECALL_FLOOR = 0.836;
/**
 * Just below the recall measured over short-form pairs whose forms the club's default file lacks,
 * where contact or birth date agree: 0.5789 (33 of 57; 0.5439 before the level name_part). The
 * rest are nicknames no part of the name (Jokke, Fredde, Olly): what a club's file must add.
 */
const UNKNOWN_FORMS_FLOOR = 0.57;

let set: IndependentIdentities;
let score: IdentityScore;
let env: Record<string, string>;
let model: { sessions: { converged: boolean; pairs: number }[]; levels: Record<string, any>[] };
let shortForms: ReturnType<typeof scoreShortForms>;
let twins: ReturnType<typeof scoreTwins>;

beforeAll(async () => {
  set = independentIdentities({ persons: 500, seed: 5 });
  const dataDir = tempDataDir();
  await writeExtraction(dataDir, set.raw);
  env = { FANLAKE_DATA_DIR: dataDir };
  await runCliOk(['load'], env);
  await runCliOk(['build', '--select', '+fan_identity_links'], env);
  const instance = await DuckDBInstance.create(join(dataDir, 'warehouse.duckdb'), { access_mode: 'READ_ONLY' });
  try {
    const connection = await instance.connect();
    const links = await readFanIdentityLinks(connection);
    score = scoreIdentityLinks(links, set.truth);
    const evidence = await readIdentityEvidence(connection);
    shortForms = scoreShortForms(links, set.truth, evidence);
    twins = scoreTwins(links, set.truth, evidence);
    const [stored] = (await connection.runAndReadAll('select cast(sessions as varchar) as sessions from meta.identity_models')).getRowObjectsJson();
    const levels = (await connection.runAndReadAll('select comparison, level, level_index, m, u from meta.identity_model_levels where level_index > 0')).getRowObjectsJson();
    model = { sessions: JSON.parse(String(stored!.sessions)), levels };
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
    for (const kind of ['diacriticsDropped', 'transliterated', 'middleName', 'firstNameTypo', 'lastNameTypo', 'consonants', 'upperCase', 'lowerCase', 'swapped', 'emailChanged', 'phoneChanged', 'shortForm']) {
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

  it('trains a model on the small club: every EM session converges on pairs of its own, and each exact level weighs for a link', () => {
    expect(model.sessions.length).toBeGreaterThan(0);
    for (const session of model.sessions) {
      expect(session.pairs).toBeGreaterThan(0);
      expect(session.converged).toBe(true);
    }
    // the set holds no address: its comparison is never seen and not asserted
    const exact = model.levels.filter((level) => level.level_index === 1 && level.comparison !== 'address');
    expect(exact.map((level) => level.comparison).sort()).toEqual(['birth_date', 'email', 'first_name', 'last_name', 'phone']);
    for (const level of exact) expect(Number(level.m), `${level.comparison} ${level.level}`).toBeGreaterThan(Number(level.u));
  });

  it('explains two records of one person comparison by comparison (fanlake identity explain)', async () => {
    const [user, profile] = ['ticketing_user', 'engagement_customer_profile'].map(
      (system) => set.truth.find((record) => record.system === system && set.truth.some((other) => other.personId === record.personId && other.system !== system))!,
    );
    const partner = set.truth.find((record) => record.personId === user!.personId && record.system === 'engagement_customer_profile') ?? profile!;
    const result = await runCli(['identity', 'explain', `ticketing_user:${user!.recordId}`, `engagement_customer_profile:${partner.recordId}`], env);
    expect(result.code, result.stderr).toBe(0);
    for (const part of ['prior', 'first_name', 'last_name', 'birth_date', 'email', 'phone', 'address', 'total', 'match probability', 'identity model version 1']) {
      expect(result.stdout).toContain(part);
    }
    const unknown = await runCli(['identity', 'explain', 'ticketing_user:1', 'ticketing_user:no-such'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('ticketing_user:1 is no record of identity resolution');
  });

  it('trains the next model version on demand (fanlake identity train)', async () => {
    const result = await runCli(['identity', 'train'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr + result.stdout).toContain('identity model version 2 trained on');
    expect(result.stdout).toMatch(/first_name\s+exact/);
  }, 120_000);

  // Nicknames from the set's own list: those the club's default first_name_forms.csv holds link
  // wherever an e-mail, phone or birth date agrees; of those it lacks, a part of the name links
  // as well (Kim for Joakim, level name_part), the others are unrelated first names, kept apart
  // as twins are (the measurement of what a club's file misses, docs/benchmarks.md).
  it('merges no twins, and links a short form the club\'s file holds wherever contact or birth date agree', () => {
    expect(twins.pairs).toBeGreaterThan(0);
    expect(twins.merged).toBe(0);
    expect(twins.nameless).toBe(0);
    expect(shortForms.known.pairs).toBeGreaterThan(20);
    expect(shortForms.known.together).toBe(shortForms.known.pairs);
    expect(shortForms.unknown.pairs).toBeGreaterThan(20);
  });

  it(`links the short forms the club's file lacks where contact or birth date agree at their floor (>= ${UNKNOWN_FORMS_FLOOR}), just below what it measured`, () => {
    expect(shortForms.unknown.together / shortForms.unknown.pairs).toBeGreaterThanOrEqual(UNKNOWN_FORMS_FLOOR);
  });

  it(`keeps precision at the goal (>= ${GOALS.precision})`, () => {
    expect(score.precision).toBeGreaterThanOrEqual(GOALS.precision);
  });

  // A known miss (docs/benchmarks.md, docs/decisions.md "Identity resolution: how fans are
  // linked"): about one pair of records in eight shares nothing but a name (a member's name and
  // phone, a profile without phone or birth date), and faker's 100 first and 100 last names make
  // most names common enough for two people to share, so their weights cannot carry a link. A
  // floor just below the measured recall, not the goal: a test that expected the goal to fail
  // passed at any recall below it, 0 included.
  it(`keeps recall at its floor (>= ${RECALL_FLOOR}), just below what it measured`, () => {
    expect(score.recall).toBeGreaterThanOrEqual(RECALL_FLOOR);
  });
});
