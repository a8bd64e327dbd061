import { beforeAll, describe, expect, it } from 'vitest';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { withConnection } from '../../src/core/duckdb.js';
import { explainPair, formatExplanation } from '../../src/models/identity-model/explain.js';
import { runChecks } from '../../src/models/index.js';
import { tempDataDir } from '../helpers/cli.js';
import { queryWarehouse } from '../helpers/warehouse.js';
import { born, clubBackground, itPlacesTraps, person, placeTrapRecords, profile, type TrapPlacement, user } from './identity-fixture.js';

/**
 * Twins named a slip apart (Eirik and Erik Pedersen): one surname, birth date and household
 * phone, each with a customer profile whose people (identities of their own) all write one first
 * name. The model links them (a phone, a surname, a first name one letter off); two identities of
 * each profile agreeing on their own name say two people, so the link is cut and listed for
 * review. Beside them, what must stay one person: a slip in a single record (a ticketing account
 * "Eirik" of Erik Dahl), and a second profile whose name only one identity writes.
 */

const RAW = {
  ticketing_users: [
    ...clubBackground(),
    user(411, { name_first: 'Eirik', name_last: 'Dahl', email: 'erik.dahl@online.no', phone: '93000411' }),
  ],
  engagement_customer_profiles: [
    profile(4001, { firstName: 'Eirik', lastName: 'Pedersen', email: 'epedersen@live.no', phoneNumber: '+47 414 04 038' }),
    profile(4002, { firstName: 'Erik', lastName: 'Pedersen', email: 'erik.pedersen@live.no', dateOfBirth: born('1999-07-23'), street: 'Sjøgata 52' }),
    profile(4011, { firstName: 'Erik', lastName: 'Dahl', email: 'erik.dahl@online.no', phoneNumber: '+47 930 00 411' }),
    profile(4021, { firstName: 'Jonas', lastName: 'Lie', email: 'jonas.lie@gmail.com', dateOfBirth: born('1985-02-14') }),
    profile(4022, { firstName: 'Jonsa', lastName: 'Lie', email: 'jonas.lie@gmail.com', dateOfBirth: born('1985-02-14') }),
  ],
  engagement_people: [
    person(5001, 4001, { firstName: 'Eirik', lastName: 'Pedersen', emailAddress: 'epedersen@live.no' }),
    person(5002, 4001, { firstName: 'Eirik', lastName: 'Pedersen', dateOfBirth: born('1999-07-23') }),
    person(5003, 4002, { firstName: 'Erik', lastName: 'Pedersen', emailAddress: 'erik.pedersen@live.no' }),
    person(5004, 4002, { firstName: 'Erik', lastName: 'Pedersen', dateOfBirth: born('1999-07-23'), phoneNumber: '+47 414 04 038' }),
    person(5011, 4011, { firstName: 'Erik', lastName: 'Dahl', emailAddress: 'erik.dahl@online.no' }),
    person(5012, 4011, { firstName: 'Erik', lastName: 'Dahl', phoneNumber: '+47 930 00 411' }),
    person(5021, 4021, { firstName: 'Jonas', lastName: 'Lie', emailAddress: 'jonas.lie@gmail.com' }),
    person(5022, 4021, { firstName: 'Jonas', lastName: 'Lie', dateOfBirth: born('1985-02-14') }),
    person(5023, 4022, { firstName: 'Jonsa', lastName: 'Lie', emailAddress: 'jonas.lie@gmail.com' }),
  ],
};

const EIRIK = 'engagement_customer_profile:4001';
const ERIK = 'engagement_customer_profile:4002';

let placement: TrapPlacement;
let modelLinks: Record<string, any>[];

beforeAll(async () => {
  placement = await placeTrapRecords(RAW, ['+fan_identity_review']);
  modelLinks = await queryWarehouse(placement.dataDir, `select from_key, to_key from intermediate.int_identity_pairs where is_link`);
});

describe('twins named a slip apart, each profile\'s people agreeing on a name', () => {
  it('are linked by the model: the name weighs less than the phone, surname and birth date they share', () => {
    const twinLinks = modelLinks.filter((link) => [link.from_key, link.to_key].some((key) => /:400[12]$|:500[1-4]$/.test(key)));
    const joined = twinLinks.filter((link) => [link.from_key, link.to_key].some((key) => /:4001$|:500[12]$/.test(key)) && [link.from_key, link.to_key].some((key) => /:4002$|:500[34]$/.test(key)));
    expect(joined.length).toBeGreaterThan(0);
  });

  itPlacesTraps(
    [
      [EIRIK, 'engagement_person:5002', 'customer_profile'],
      [ERIK, 'engagement_person:5004', 'customer_profile'],
      // one record's slip: Erik Dahl's ticketing account
      ['ticketing_user:411', 'engagement_customer_profile:4011', 'model_v1'],
      // a second profile whose name one identity alone writes
      ['engagement_customer_profile:4021', 'engagement_customer_profile:4022', 'customer_profile'],
    ],
    [[EIRIK, ERIK]],
    () => placement,
  );

  it('lists every link the cut left out for review as chain_cut, its ends in the two fans', async () => {
    const review = await queryWarehouse(placement.dataDir, `select record_a, record_b, fan_id_a, fan_id_b from marts.fan_identity_review where reason = 'chain_cut'`);
    expect(review.length).toBeGreaterThan(0);
    for (const row of review) {
      expect([placement.fanOf.get(row.record_a), placement.fanOf.get(row.record_b)].sort()).toEqual([placement.fanOf.get(EIRIK), placement.fanOf.get(ERIK)].sort());
    }
  });

  it('identity explain says the link was cut and the two are two fans, as fan_identity_links has them', async () => {
    const [cut] = await queryWarehouse(placement.dataDir, `select record_a, record_b from marts.fan_identity_review where reason = 'chain_cut'`);
    const explained = await withConnection(join(placement.dataDir, 'warehouse.duckdb'), (connection) => explainPair(connection, cut!.record_a, cut!.record_b));
    expect([explained.modelLinks, explained.chainCut]).toEqual([true, true]);
    expect(explained.fans).toEqual([placement.fanOf.get(cut!.record_a), placement.fanOf.get(cut!.record_b)]);
    expect(formatExplanation(explained)).toContain('two profiles whose people agree on names a slip apart');
  });

  it('passes the data test that no fan holds two people', async () => {
    const results = await runChecks({ dataDir: placement.dataDir, all: true });
    expect(results.filter((result) => result.name.includes('identity_fans_hold_no_contradiction')).map((result) => result.status)).toEqual(['pass']);
  });

  it('fails the data test, naming two of their records, where a fan holds both twins', async () => {
    const merged = tempDataDir();
    cpSync(placement.dataDir, merged, { recursive: true });
    await withConnection(join(merged, 'warehouse.duckdb'), (connection) =>
      connection.run(`update intermediate.int_identity_clusters set fan_id = '${placement.fanOf.get(EIRIK)}' where fan_id = '${placement.fanOf.get(ERIK)}'`),
    );
    const results = await runChecks({ dataDir: merged, all: true, record: false });
    const [test] = results.filter((result) => result.name.includes('identity_fans_hold_no_contradiction'));
    expect(test!.status).toBe('fail');
    const twins = (key: string) => (/:400[12]$|:500[1-4]$/.test(key) ? (/:4001$|:500[12]$/.test(key) ? 'eirik' : 'erik') : 'other');
    expect(test!.sample.map((row) => [twins(String(row.from_key)), twins(String(row.to_key))].sort())).toContainEqual(['eirik', 'erik']);
  });
});
