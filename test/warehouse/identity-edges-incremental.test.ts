import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildModels, type ModelResult } from '../../src/models/index.js';
import { tempDataDir } from '../helpers/cli.js';
import { queryWarehouse, tableSnapshot } from '../helpers/warehouse.js';
import { clubBackground, person, profile, type RawRecords, user as ticketingUser, writeRawTables } from './identity-fixture.js';

/**
 * int_identity_edges computes again only the links of records changed since its last build
 * (and deletes those of records gone), yet must hold what a full rebuild would. Hand-made
 * records around each way a link changes: an identity whose externalId names a user who is
 * renamed to somebody else (the hard link goes: the fan moves), a person gone with its external
 * and model links, a removed profile with its people (links among records gone alone), a person
 * moving to another profile, a group without its profile that gains a smaller key (every link
 * of the group changes though only one record is new), and a new record the model links.
 */
const user = (id: number, fields: Record<string, unknown>) => ticketingUser(id, { phone: '', ...fields });
const T0 = '2026-06-01T00:00:00Z';
const T1 = '2026-06-02T00:00:00Z';
/** A record as the last load left it, read before: the next build has no reason to read it again. */
const unread = <T extends Record<string, unknown>>(record: T) => ({ ...record, _extracted_at: T0 });
const gone = <T extends Record<string, unknown>>(record: T) => ({ ...record, _extracted_at: T0, _vanished_at: T1 });

const RAW: RawRecords = {
  ticketing_users: [
    ...clubBackground(),
    // named by identity 401's externalId
    user(11, { name_first: 'Sigrun', name_last: 'Fjellheim', email: 'sigrun.f@example.org' }),
    // named by identity 402's externalId, and like person 403 (the model's link)
    user(12, { name_first: 'Amund', name_last: 'Kvitberg', email: 'amund.k@example.org', birth_date: '1977-03-04' }),
    // like the new person 408 of the next load
    user(13, { name_first: 'Torvild', name_last: 'Sandnesli', email: 'torvild.s@example.org', birth_date: '1969-09-09' }),
  ],
  engagement_customer_profiles: [
    profile(301, { firstName: 'Sigrun', lastName: 'Fjellheim', email: 'sigrun.f@example.org' }),
    profile(302, { firstName: 'Amund', lastName: 'Kvitberg', email: 'amund.kv@example.org' }),
    // removed with its people
    profile(303, { firstName: 'Marit', lastName: 'Solbakken', email: 'marit.s@example.org' }),
    profile(304, { firstName: 'Ingebjørg', lastName: 'Rustad', email: 'ingebjorg.r@example.org' }),
    profile(305, { firstName: 'Eirik', lastName: 'Rustad', email: 'eirik.r@example.org' }),
  ],
  engagement_people: [
    person(401, 301, { firstName: 'Sigrun', lastName: 'Fjellheim', emailAddress: 'sigrun.f@example.org', network: 'club-crm', externalId: '11' }),
    person(402, 302, { firstName: 'Amund', lastName: 'Kvitberg', emailAddress: 'amund.k@example.org', network: 'club-crm', externalId: '12' }),
    person(403, 302, { firstName: 'Amund', lastName: 'Kvitberg', emailAddress: 'amund.k@example.org', dateOfBirth: '1977-03-04T00:00:00.000Z' }),
    person(404, 303, { firstName: 'Marit', lastName: 'Solbakken', emailAddress: 'marit.s@example.org' }),
    person(405, 303, { firstName: 'Marit', lastName: 'Solbakken', emailAddress: 'marit.solbakken@example.org' }),
    // moves to profile 305
    person(406, 304, { firstName: 'Eirik', lastName: 'Rustad', emailAddress: 'eirik.r@example.org' }),
    // of a profile never loaded: the group's smallest key is a person's
    person(707, 999, { firstName: 'Liv', lastName: 'Haugen', emailAddress: 'liv.h@example.org' }),
    person(709, 999, { firstName: 'Liv', lastName: 'Haugen', emailAddress: 'liv.haugen@example.org' }),
  ],
};

const [, , , P304, P305] = RAW.engagement_customer_profiles!;
const [Q401, Q402, Q403, Q404, Q405, Q406, Q707, Q709] = RAW.engagement_people!;
const USERS = RAW.ticketing_users!;

/** A day later: what changed is read again; what did not keeps the first load's time. */
const CHANGED: RawRecords = {
  ticketing_users: [
    ...USERS.slice(0, -3).map(unread),
    // somebody else now: last names differ, so 401's externalId no longer links them
    user(11, { name_first: 'Bjarne', name_last: 'Ødegård', email: 'bjarne.o@example.org' }),
    unread(USERS.at(-2)!),
    unread(USERS.at(-1)!),
  ],
  engagement_customer_profiles: [
    unread(RAW.engagement_customer_profiles![0]!),
    unread(RAW.engagement_customer_profiles![1]!),
    gone(RAW.engagement_customer_profiles![2]!),
    unread(P304!),
    unread(P305!),
  ],
  engagement_people: [
    unread(Q401!),
    // gone: its external link to user 12 and the model's link to 403 go with it
    gone(Q402!),
    unread(Q403!),
    // their profile was removed: the people are not flagged, and go with it
    unread(Q404!),
    unread(Q405!),
    { ...Q406!, customerProfileId: 305 },
    unread(Q707!),
    unread(Q709!),
    // joins the group of 707 and 709 with a smaller key
    person(700, 999, { firstName: 'Liv', lastName: 'Haugen', emailAddress: 'liv.haugen2@example.org' }),
    // new, and like user 13
    person(408, 998, { firstName: 'Torvild', lastName: 'Sandnesli', emailAddress: 'torvild.s@example.org', dateOfBirth: '1969-09-09T00:00:00.000Z' }),
  ],
};

const COMPARED = ['intermediate.int_identity_edges', 'intermediate.int_identity_clusters'];

const buildOk = async (dataDir: string, fullRefresh = false): Promise<ModelResult[]> => {
  const results = await buildModels({ dataDir, select: ['+fan_identity_links'], fullRefresh });
  expect(results.filter((result) => result.status !== 'ok' && result.status !== 'unchanged').map((result) => `${result.model}: ${result.error?.message ?? result.reason}`)).toEqual([]);
  return results;
};

/** Each link of the hand-made records as `from to match_rule`. */
const links = async (dataDir: string) =>
  (
    await queryWarehouse(
      dataDir,
      `select from_key || ' ' || to_key || ' ' || match_rule as link from intermediate.int_identity_edges
       where regexp_matches(from_key || ' ' || to_key, ':(1[1-3]|30[1-5]|40[1-8]|70[0-9])( |$)')
       order by 1`,
    )
  ).map((row) => String(row.link));

describe('int_identity_edges built incrementally', () => {
  let dataDir: string;
  let changedBuild: ModelResult[];
  let before: string[];
  let after: string[];
  let incremental: Map<string, string>;
  let full: Map<string, string>;

  beforeAll(async () => {
    dataDir = tempDataDir();
    const warehouse = join(dataDir, 'warehouse.duckdb');
    await writeRawTables(warehouse, RAW, T0);
    await buildOk(dataDir);
    before = await links(dataDir);
    await writeRawTables(warehouse, CHANGED, T1);
    changedBuild = await buildOk(dataDir);
    after = await links(dataDir);
    incremental = await tableSnapshot(dataDir, COMPARED);
    await buildOk(dataDir, true);
    full = await tableSnapshot(dataDir, COMPARED);
  }, 300_000);

  it('starts with each kind of link the changes touch', () => {
    expect(before).toEqual(
      expect.arrayContaining([
        'engagement_customer_profile:301 engagement_person:401 customer_profile',
        'engagement_person:401 ticketing_user:11 external_id',
        'engagement_person:402 ticketing_user:12 external_id',
        'engagement_customer_profile:303 engagement_person:404 customer_profile',
        'engagement_customer_profile:304 engagement_person:406 customer_profile',
        'engagement_person:707 engagement_person:709 customer_profile',
      ]),
    );
    expect(before.filter((link) => link.includes('ticketing_user:12') && link.includes('engagement_person:403'))).toHaveLength(1);
  });

  it('builds the links incrementally', () => {
    expect(changedBuild.find((result) => result.model === 'int_identity_edges')).toMatchObject({ status: 'ok', materialized: 'incremental' });
  });

  it('changes the links of the changed, gone and moved records, and those of a group that gained a smaller key', () => {
    expect(after).not.toContain('engagement_person:401 ticketing_user:11 external_id');
    expect(after.filter((link) => link.includes('engagement_person:402'))).toEqual([]);
    expect(after.filter((link) => /:(303|404|405) /.test(`${link} `))).toEqual([]);
    expect(after).toContain('engagement_customer_profile:305 engagement_person:406 customer_profile');
    expect(after).not.toContain('engagement_customer_profile:304 engagement_person:406 customer_profile');
    expect(after).toEqual(expect.arrayContaining(['engagement_person:700 engagement_person:707 customer_profile', 'engagement_person:700 engagement_person:709 customer_profile']));
    expect(after).not.toContain('engagement_person:707 engagement_person:709 customer_profile');
    expect(after.filter((link) => link.includes('engagement_person:408') && link.includes('ticketing_user:13'))).toHaveLength(1);
  });

  it.each(COMPARED)('leaves %s exactly as a full rebuild does', (relation) => {
    expect(incremental.get(relation)!.length).toBeGreaterThan(0);
    expect(incremental.get(relation)).toBe(full.get(relation));
  });
});
