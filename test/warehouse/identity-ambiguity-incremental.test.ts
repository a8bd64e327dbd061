import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildModels } from '../../src/models/index.js';
import { tempDataDir } from '../helpers/cli.js';
import { queryWarehouse, tableSnapshot } from '../helpers/warehouse.js';
import { clubBackground, person, profile, type RawRecords, user, writeRawTables } from './identity-fixture.js';

/**
 * int_identity_ambiguous_links judges again only the middle records a build can have changed,
 * yet must hold what a full rebuild would. Three households' mailboxes, each with a record
 * without a name the model links to both partners: a day later the first's record is named (it
 * is Ole's, no longer ambiguous: the middle itself changed), the second household's partner
 * leaves the mailbox (the middle did not change, a record its rows named did), and a third
 * household gains such a record (a new middle).
 */
const T0 = '2026-06-01T00:00:00Z';
const T1 = '2026-06-02T00:00:00Z';
const unread = <T extends Record<string, unknown>>(record: T) => ({ ...record, _extracted_at: T0 });

/** A couple sharing a mailbox, a phone and an address, and a record of them all without a name. */
const household = (at: number, last: string, his: string, hers: string, mailbox: string) => {
  const home = { email: mailbox, phone: `9300${at}`, address: `${last}veien ${at / 100}`, zip_code: '7040', city: 'Trondheim' };
  return {
    his: user(at + 2, { name_first: his, name_last: last, ...home }),
    nameless: user(at + 3, { name_first: null, name_last: null, ...home }),
    hers: profile(at + 1000, { firstName: hers, lastName: last, email: mailbox, phoneNumber: home.phone, street: home.address, postalCode: home.zip_code, city: home.city }),
    hersPerson: person(at + 5000, at + 1000, { firstName: hers, lastName: last, emailAddress: mailbox }),
  };
};

const BERG = household(100, 'Berg', 'Ole', 'Anna', 'berg.family@online.no');
const DAL = household(200, 'Dal', 'Knut', 'Eva', 'dal.family@online.no');
const HOLM = household(300, 'Holm', 'Tor', 'Lise', 'holm.family@online.no');

const RAW: RawRecords = {
  ticketing_users: [...clubBackground(), BERG.his, BERG.nameless, DAL.his, DAL.nameless, HOLM.his],
  engagement_customer_profiles: [BERG.hers, DAL.hers, HOLM.hers],
  engagement_people: [BERG.hersPerson, DAL.hersPerson, HOLM.hersPerson],
};

const CHANGED: RawRecords = {
  ticketing_users: [
    ...clubBackground().map(unread),
    unread(BERG.his),
    // the mailbox record is Ole's after all
    { ...BERG.nameless, name_first: 'Ole', name_last: 'Berg' },
    unread(DAL.his),
    unread(DAL.nameless),
    unread(HOLM.his),
    // a new record in the third household's mailbox
    HOLM.nameless,
  ],
  engagement_customer_profiles: [
    unread(BERG.hers),
    // Eva leaves the mailbox
    { ...DAL.hers, email: 'eva.dal@private.example', phoneNumber: '93999999', street: 'Elvegata 9', postalCode: '7010' },
    unread(HOLM.hers),
  ],
  engagement_people: [unread(BERG.hersPerson), { ...DAL.hersPerson, emailAddress: 'eva.dal@private.example' }, unread(HOLM.hersPerson)],
};

const COMPARED = [
  'intermediate.int_identity_ambiguous_links',
  'intermediate.int_identity_edges',
  'intermediate.int_identity_clusters',
  'marts.fan_identity_review',
];

const buildOk = async (dataDir: string, fullRefresh = false) => {
  const results = await buildModels({ dataDir, select: ['+fan_identity_links', '+fan_identity_review'], fullRefresh });
  expect(results.filter((result) => result.status !== 'ok' && result.status !== 'unchanged').map((result) => `${result.model}: ${result.error?.message ?? result.reason}`)).toEqual([]);
};

const middles = async (dataDir: string) =>
  (await queryWarehouse(dataDir, `select distinct middle_key from intermediate.int_identity_ambiguous_links order by 1`)).map((row) => String(row.middle_key));

describe('ambiguous links built incrementally', () => {
  let dataDir: string;
  let before: string[];
  let after: string[];
  let incremental: Map<string, string>;
  let full: Map<string, string>;

  beforeAll(async () => {
    dataDir = tempDataDir();
    const warehouse = join(dataDir, 'warehouse.duckdb');
    await writeRawTables(warehouse, RAW, T0);
    await buildOk(dataDir);
    before = await middles(dataDir);
    await writeRawTables(warehouse, CHANGED, T1);
    await buildOk(dataDir);
    after = await middles(dataDir);
    incremental = await tableSnapshot(dataDir, COMPARED);
    await buildOk(dataDir, true);
    full = await tableSnapshot(dataDir, COMPARED);
  });

  it('starts with the two mailboxes\' records without a name as ambiguous', () => {
    expect(before).toEqual(['ticketing_user:103', 'ticketing_user:203']);
  });

  it('judges again the record named since, the one whose partner left, and the new one', () => {
    expect(after).toEqual(['ticketing_user:303']);
  });

  it.each(COMPARED)('leaves %s exactly as a full rebuild does', (relation) => {
    expect(incremental.get(relation)!.length).toBeGreaterThan(0);
    expect(incremental.get(relation)).toBe(full.get(relation));
  });
});
