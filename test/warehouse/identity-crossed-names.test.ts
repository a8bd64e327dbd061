import { beforeAll, expect, it } from 'vitest';
import { runChecks } from '../../src/models/index.js';
import { queryWarehouse } from '../helpers/warehouse.js';
import { born, placeTrapRecords, type TrapPlacement } from './identity-fixture.js';

/**
 * One person whose ticketing account has the names the other way round and a middle name
 * ("Berge", "Kristian Øyvind"), beside a customer profile under his short form (Kris Berge):
 * taken crosswise, the first-name comparison reads one record's first name against the other's
 * last, so it says "Berge and Berge" one way and "Kris and Kristian Øyvind" the other. Found at
 * scale 80, where the clusters (l the lower record number) let such a pair be one fan and the
 * data test (l the lower record key) failed on it. The forms are compared word by word since, so
 * neither way is a contradiction.
 */
const RAW = {
  ticketing_users: [
    { id: 401, last_update: '2026-01-01T00:00:00.000Z', enabled: true, name_first: 'Berge', name_last: 'Kristian Øyvind', email: 'kristian.berge@live.no', phone: '42217453', birthday: '1983-10-17', address: 'Sjøgata 103', zip_code: '5003', city: 'Bergen' },
  ],
  engagement_customer_profiles: [
    { id: '4001', type: 'customerProfiles', firstName: 'Kris', lastName: 'Berge', email: 'kristian.berge@live.no', phoneNumber: '+47 422 17 453', dateOfBirth: born('1983-10-17'), street: 'Sjøgata 103', postalCode: '5003', city: 'Bergen' },
  ],
};

let placement: TrapPlacement;

beforeAll(async () => {
  placement = await placeTrapRecords(RAW);
});

it('judges a crosswise pair a contradiction or not whichever record is read first', async () => {
  const [judged] = await queryWarehouse(
    placement.dataDir,
    `with a as (select * from intermediate.int_identity_comparables where record_key = 'ticketing_user:401'),
          b as (select * from intermediate.int_identity_comparables where record_key = 'engagement_customer_profile:4001')
     select macros.identity_levels(a, b).crossed as crossed, macros.identity_contradicts(a, b) as a_first, macros.identity_contradicts(b, a) as b_first from a, b`,
  );
  expect(judged).toEqual({ crossed: true, a_first: judged!.b_first, b_first: judged!.a_first });
  expect(judged!.a_first).toBe(judged!.b_first);
  expect(judged!.a_first).toBe(false);
});

it('passes the data test that no fan holds two people, as the clusters judged the pair', async () => {
  const results = await runChecks({ dataDir: placement.dataDir, all: true });
  expect(results.filter((result) => result.name.includes('identity_fans_hold_no_contradiction')).map((result) => result.status)).toEqual(['pass']);
});

it('links him as one fan: Kris is a short form of a word of "Kristian Øyvind", no contradiction either way', () => {
  expect(placement.fanOf.get('ticketing_user:401')).toBeDefined();
  expect(placement.fanOf.get('ticketing_user:401')).toBe(placement.fanOf.get('engagement_customer_profile:4001'));
});
