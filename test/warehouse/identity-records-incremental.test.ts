import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildModels, type ModelResult } from '../../src/models/index.js';
import { DEFAULT_CLUB_FILES_DIR } from '../../src/models/club/club-files.js';
import { tempDataDir } from '../helpers/cli.js';
import { queryWarehouse, tableSnapshot } from '../helpers/warehouse.js';
import { born, clubBackground, person, profile, type RawRecords, user as ticketingUser, writeRawTables } from './identity-fixture.js';

/**
 * int_identity_records computes only the records whose fields changed and what depends on
 * them, yet must hold what a full rebuild would. Hand-made records around each thing a row
 * depends on beyond its own fields, built through the real models: a person whose profile
 * borrows its birth date, a person removed from a profile of two first names, a person moved
 * to another profile, a removed profile (its person not flagged, as a read by key leaves it), new records, a record whose name words come to lean
 * the other way while it stays as it was, and a changed first_name_forms.csv.
 */
const user = (id: number, fields: Record<string, unknown>) => ticketingUser(id, { phone: '', ...fields });
const T0 = '2026-06-01T00:00:00Z';
const T1 = '2026-06-02T00:00:00Z';
/** A record as the last load left it, read before: the next build has no reason to read it again. */
const unread = <T extends Record<string, unknown>>(record: T) => ({ ...record, _extracted_at: T0 });
const gone = <T extends Record<string, unknown>>(record: T) => ({ ...record, _extracted_at: T0, _vanished_at: T1 });

// written as "Zorvik Quellan" by one user; two new users write "Quellan Zorvik", so both words
// come to lean the other way and the first user's name is taken as swapped
const ZORVIK = user(1, { name_first: 'Zorvik', name_last: 'Quellan', email: 'zq@example.org' });

const RAW: RawRecords = {
  ticketing_users: [...clubBackground(), ZORVIK],
  engagement_customer_profiles: [
    // no first name or birth date: borrowed from its person
    profile(101, { lastName: 'Brekkestad', email: 'brekkestad@example.org' }),
    profile(102, { firstName: 'Torbjørn', lastName: 'Vassli', email: 'vassli@example.org' }),
    // two people of two first names: none borrowed, until one goes
    profile(103, { lastName: 'Ulvesund', email: 'ulvesund@example.org' }),
    // borrows its person's first name until the person moves to 105
    profile(104, { lastName: 'Tjernsli', email: 'tjernsli@example.org' }),
    profile(105, { firstName: 'Hallvard', lastName: 'Tjernsli', email: 'hallvard@example.org' }),
  ],
  engagement_people: [
    person(201, 101, { firstName: 'Solveig', lastName: 'Brekkestad', dateOfBirth: born('1980-01-01'), emailAddress: 'solveig@example.org' }),
    person(202, 102, { firstName: 'Torbjørn', lastName: 'Vassli', emailAddress: 'vassli@example.org' }),
    person(203, 103, { firstName: 'Anna', lastName: 'Ulvesund', emailAddress: 'anna.u@example.org' }),
    person(204, 103, { firstName: 'Berit', lastName: 'Ulvesund', emailAddress: 'berit.u@example.org' }),
    person(205, 104, { firstName: 'Gudrun', lastName: 'Tjernsli', emailAddress: 'gudrun@example.org' }),
  ],
};

const [P101, P102, P103, P104, P105] = RAW.engagement_customer_profiles!;
const [Q201, Q202, Q203, Q204, Q205] = RAW.engagement_people!;

/** A day later: what changed is read again; what did not keeps the first load's time. */
const CHANGED: RawRecords = {
  ticketing_users: [
    ...clubBackground().map(unread),
    unread(ZORVIK),
    user(2, { name_first: 'Quellan', name_last: 'Zorvik', email: 'qz2@example.org' }),
    user(3, { name_first: 'Quellan', name_last: 'Zorvik', email: 'qz3@example.org' }),
    user(4, { name_first: 'Nyvald', name_last: 'Brukersen', email: 'nyvald@example.org' }),
  ],
  engagement_customer_profiles: [unread(P101!), gone(P102!), unread(P103!), unread(P104!), P105!],
  engagement_people: [
    { ...Q201!, dateOfBirth: born('1981-02-02') },
    // its profile was read by key and found gone: the person is not flagged
    unread(Q202!),
    unread(Q203!),
    gone(Q204!),
    { ...Q205!, customerProfileId: 105 },
  ],
};

const COMPARED = [
  'intermediate.int_identity_ticketing_fields',
  'intermediate.int_identity_engagement_fields',
  'intermediate.int_identity_name_words',
  'intermediate.int_identity_records',
];

const record = async (dataDir: string, key: string) => (await queryWarehouse(dataDir, `select * from intermediate.int_identity_records where record_key = '${key}'`))[0];

const buildOk = async (dataDir: string, options: { fullRefresh?: boolean; clubDir?: string } = {}): Promise<ModelResult[]> => {
  const results = await buildModels({ dataDir, select: ['+fan_identity_links'], ...options });
  expect(results.filter((result) => result.status !== 'ok' && result.status !== 'unchanged').map((result) => `${result.model}: ${result.error?.message ?? result.reason}`)).toEqual([]);
  return results;
};

describe('int_identity_records built incrementally', () => {
  let dataDir: string;
  let changedBuild: ModelResult[];
  let incremental: Map<string, string>;
  let full: Map<string, string>;
  let formsBuild: ModelResult[];
  let formsIncremental: Map<string, string>;
  let formsFull: Map<string, string>;
  let clubDir: string;
  const at: Record<string, Record<string, unknown> | undefined> = {};

  beforeAll(async () => {
    dataDir = tempDataDir();
    const warehouse = join(dataDir, 'warehouse.duckdb');
    await writeRawTables(warehouse, RAW, T0);
    await buildOk(dataDir);
    at.profileBefore = await record(dataDir, 'engagement_customer_profile:101');

    await writeRawTables(warehouse, CHANGED, T1);
    changedBuild = await buildOk(dataDir);
    at.removedPeople = (await queryWarehouse(dataDir, `select list(record_key order by record_key) as keys from intermediate.int_identity_records where customer_profile_id = 102`))[0];
    for (const key of ['ticketing_user:1', 'engagement_customer_profile:101', 'engagement_customer_profile:103', 'engagement_customer_profile:104', 'engagement_customer_profile:105']) {
      at[key] = await record(dataDir, key);
    }
    incremental = await tableSnapshot(dataDir, COMPARED);
    await buildOk(dataDir, { fullRefresh: true });
    full = await tableSnapshot(dataDir, COMPARED);

    // the club's short forms: Hallvard now stands for Halvard too
    clubDir = join(dataDir, 'club');
    mkdirSync(clubDir);
    copyFileSync(join(DEFAULT_CLUB_FILES_DIR, 'first_name_forms.csv'), join(clubDir, 'first_name_forms.csv'));
    writeFileSync(join(clubDir, 'first_name_forms.csv'), `${readFileSync(join(clubDir, 'first_name_forms.csv'), 'utf8').trimEnd()}\nHallvard,Halvard\n`);
    formsBuild = await buildOk(dataDir, { clubDir });
    at.forms = await record(dataDir, 'engagement_customer_profile:105');
    formsIncremental = await tableSnapshot(dataDir, COMPARED);
    await buildOk(dataDir, { fullRefresh: true, clubDir });
    formsFull = await tableSnapshot(dataDir, COMPARED);
  }, 300_000);

  it('computes only the records the changes touched', () => {
    const built = changedBuild.find((result) => result.model === 'int_identity_records')!;
    expect(built).toMatchObject({ status: 'ok', materialized: 'incremental' });
    // the 2 new users and Zorvik, the changed people and the 4 profiles of their groups, not the 60 others
    expect(built.rows).toBeGreaterThan(0);
    expect(built.rows).toBeLessThan(20);
  });

  it('follows what a record borrows from its profile group, and which way round its names are', () => {
    expect(at.profileBefore).toMatchObject({ first_name_key: 'solveig', birth_date_key: '1980-01-01' });
    // its person's new birth date
    expect(at['engagement_customer_profile:101']).toMatchObject({ first_name_key: 'solveig', birth_date_key: '1981-02-02' });
    // Berit gone: Anna is the group's one first name
    expect(at['engagement_customer_profile:103']).toMatchObject({ first_name_key: 'anna' });
    // Gudrun moved on
    expect(at['engagement_customer_profile:104']).toMatchObject({ first_name_key: null });
    // written as before, now taken the other way round
    expect(at['ticketing_user:1']).toMatchObject({ first_name: 'Zorvik', first_name_spelling: 'quelan', last_name_spelling: 'zorvik' });
    expect(at.forms!.first_name_forms).toEqual(['halvard']);
    // a removed profile takes its people along
    expect(at.removedPeople).toMatchObject({ keys: null });
  });

  it.each(COMPARED)('leaves %s as a full rebuild does after records changed', (relation) => {
    expect(incremental.get(relation)!.length).toBeGreaterThan(0);
    expect(incremental.get(relation)).toBe(full.get(relation));
  });

  it.each(COMPARED)('leaves %s as a full rebuild does after first_name_forms.csv changed', (relation) => {
    expect(formsBuild.find((result) => result.model === 'int_identity_records')).toMatchObject({ status: 'ok' });
    expect(formsIncremental.get(relation)).toBe(formsFull.get(relation));
  });
});
