import { beforeAll, describe, expect, it } from 'vitest';
import { formatExplanation } from '../../src/models/identity-model/explain.js';
import { queryWarehouse } from '../helpers/warehouse.js';
import { born, profile, type RawRecords, user } from './identity-fixture.js';
import { BACKDROP, explainOf, fansOf, noContradiction, placeWithClubModel, storedPairOf } from './identity-rule-fixture.js';

/**
 * Birth dates different beyond every slip are two people only where the model in force weighs
 * the level `different` at least the ambiguity weight (10 bits) against: the club's own records
 * keep birth dates well. Built through the real models twice, with the club model of
 * identity-model-fixture.ts (different: -10.4 bits) and with the same model but birth dates as
 * training weighed them on Febrl 4, whose second file often replaces a birth date outright (m
 * 0.046, u 0.986: -4.4 bits).
 */

const RAW: RawRecords = {
  ticketing_users: [
    ...BACKDROP,
    // one person, or father and son of one name: one name, e-mail, phone and address, another birth date
    user(401, { name_first: 'Siri', name_last: 'Dahl', email: 'siri.dahl@online.no', phone: '93000401', birthday: '1985-04-12', address: 'Lia 9', zip_code: '7040', city: 'Trondheim' }),
    // one name, nothing else in common: only the names say they may be one person
    user(411, { name_first: 'Tor', name_last: 'Vikane', email: 'tor@online.no', phone: '', birthday: '1970-02-02', address: 'Storgata 1', zip_code: '9008', city: 'Tromsø' }),
  ],
  engagement_customer_profiles: [
    profile(4001, { firstName: 'Siri', lastName: 'Dahl', email: 'siri.dahl@online.no', phoneNumber: '93000401', dateOfBirth: born('1991-09-27'), street: 'Lia 9', postalCode: '7040', city: 'Trondheim' }),
    profile(4011, { firstName: 'Tor', lastName: 'Vikane', email: 'vikane@example.org', dateOfBirth: born('1962-11-30'), street: 'Elvegata 3', postalCode: '5003', city: 'Bergen' }),
  ],
};

const SIRI: [string, string] = ['ticketing_user:401', 'engagement_customer_profile:4001'];
const TOR: [string, string] = ['ticketing_user:411', 'engagement_customer_profile:4011'];

describe('birth dates the club keeps well (the model weighs a difference -10.4 bits)', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await placeWithClubModel(RAW, {});
  }, 120_000);

  it('the model links the two records, and the chain rule cuts them into two fans, the link listed for review', async () => {
    expect((await storedPairOf(dataDir, SIRI))?.is_link).toBe(true);
    expect(new Set(await fansOf(dataDir, SIRI)).size).toBe(2);
    const review = await queryWarehouse(dataDir, `select reason from marts.fan_identity_review where least(record_a, record_b) = least('${SIRI[0]}', '${SIRI[1]}') and greatest(record_a, record_b) = greatest('${SIRI[0]}', '${SIRI[1]}')`);
    expect(review.map((row) => row.reason)).toEqual(['chain_cut']);
    expect(await noContradiction(dataDir)).toEqual(['pass']);
  });

  it('never compares two records whose names alone agree and whose birth dates differ', async () => {
    const explained = await explainOf(dataDir, TOR);
    expect(explained.worthComparing).toBe(false);
  });

  it('identity explain states the rule: two people, and the weight it rests on', async () => {
    const explained = await explainOf(dataDir, SIRI);
    expect(explained.birthDates).toEqual({ differ: true, tellApart: true, differentWeight: expect.closeTo(Math.log2(0.00072 / 0.984), 6), ambiguityWeight: -10 });
    expect(explained.chainCut).toBe(true);
    const text = formatExplanation(explained);
    expect(text).toContain('birth dates different: two people beyond any slip (the model weighs a difference -10.42 bits, at least the ambiguity weight -10)');
    expect(text).toContain('birth dates different beyond any slip');
  });
});

describe('birth dates the club keeps badly (the model weighs a difference -4.4 bits, as on Febrl 4)', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await placeWithClubModel(RAW, { birth_date: { different: [0.046, 0.986] } });
  }, 120_000);

  it('keeps the person whose two records carry different birth dates as one fan', async () => {
    const fans = await fansOf(dataDir, SIRI);
    expect(fans).toHaveLength(2);
    expect(new Set(fans).size).toBe(1);
    const review = await queryWarehouse(dataDir, `select reason from marts.fan_identity_review where reason = 'chain_cut'`);
    expect(review).toEqual([]);
    expect(await noContradiction(dataDir)).toEqual(['pass']);
  });

  it('compares two records whose names agree though their birth dates differ (the model weighs them)', async () => {
    const explained = await explainOf(dataDir, TOR);
    expect(explained.worthComparing).toBe(true);
    expect(new Set(await fansOf(dataDir, TOR)).size).toBe(2);
  });

  it('identity explain states the rule: evidence, not two people', async () => {
    const explained = await explainOf(dataDir, SIRI);
    expect(explained.birthDates).toEqual({ differ: true, tellApart: false, differentWeight: expect.closeTo(Math.log2(0.046 / 0.986), 6), ambiguityWeight: -10 });
    expect([explained.modelLinks, explained.chainCut, explained.fans[0] === explained.fans[1]]).toEqual([true, false, true]);
    expect(formatExplanation(explained)).toContain('birth dates different: evidence the model weighs, not two people (the model weighs a difference -4.42 bits, weaker than the ambiguity weight -10');
  });
});
