import { beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { withConnection } from '../../src/core/duckdb.js';
import { explainPair, formatExplanation, type PairExplanation } from '../../src/models/identity-model/explain.js';
import { runChecks } from '../../src/models/index.js';
import { queryWarehouse } from '../helpers/warehouse.js';
import { born, itPlacesTraps, placeTrapRecords, profile, type TrapPlacement, user } from './identity-fixture.js';

/**
 * A chain of model links between two people, built through the real models with a club's trained
 * identity model (identity-model-fixture.ts): Kari, a mailbox record without a name, a phone
 * record without a name, Ola. No record is linked directly to both, so the ambiguity guard does
 * not see it; the component holds Kari and Ola, whose first names are unrelated, and is cut at
 * its weakest link, which is listed for review.
 */

const backdrop = [
  ['Kari', 'Lunde'], ['Ola', 'Lunde'], ['Per', 'Haugen'], ['Tone', 'Haugen'],
].map(([first, last], at) => user(900 + at, { name_first: first, name_last: last, email: `backdrop${at}@example.org`, phone: '' }));

const RAW = {
  ticketing_users: [
    ...backdrop,
    user(301, { name_first: 'Kari', name_last: 'Aune', email: 'kari.aune@online.no', phone: '', birthday: '1990-01-01', address: 'Lia 7', zip_code: '7040', city: 'Trondheim' }),
    // the phone record: no name, the household's phone, address and e-mail
    user(303, { name_first: null, name_last: null, email: 'aune.home@online.no', phone: '93000302', address: 'Lia 7', zip_code: '7040', city: 'Trondheim' }),
    // father and son of one name, one e-mail, phone and address, born 30 years apart: the model
    // alone would link them (the birth dates weigh less than all the rest); two fans
    user(311, { name_first: 'Arne', name_last: 'Brekke', email: 'brekke@online.no', phone: '93000311', birthday: '1950-03-03', address: 'Vika 2', zip_code: '7050', city: 'Trondheim' }),
  ],
  engagement_customer_profiles: [
    // the mailbox record: no name, Kari's e-mail, the household's phone and address
    profile(3002, { email: 'kari.aune@online.no', phoneNumber: '+47 930 00 302', street: 'Lia 7', postalCode: '7040', city: 'Trondheim' }),
    profile(3004, { firstName: 'Ola', lastName: 'Aune', email: 'aune.home@online.no', dateOfBirth: born('1988-05-05'), street: 'Lia 7', postalCode: '7040', city: 'Trondheim' }),
    profile(3011, { firstName: 'Arne', lastName: 'Brekke', email: 'brekke@online.no', phoneNumber: '93000311', dateOfBirth: born('1980-08-08'), street: 'Vika 2', postalCode: '7050', city: 'Trondheim' }),
  ],
};

const KARI = 'ticketing_user:301';
const MAILBOX = 'engagement_customer_profile:3002';
const PHONE = 'ticketing_user:303';
const OLA = 'engagement_customer_profile:3004';

let placement: TrapPlacement;
let modelLinks: Record<string, any>[];

beforeAll(async () => {
  placement = await placeTrapRecords(RAW, ['+fan_identity_review']);
  modelLinks = await queryWarehouse(placement.dataDir, `select from_key, to_key from intermediate.int_identity_pairs where is_link`);
});

const linked = (a: string, b: string) => modelLinks.some((link) => [link.from_key, link.to_key].sort().join(' ') === [a, b].sort().join(' '));

describe('a chain of model links between two people', () => {
  it('is a chain: the model links each record to the next, and nothing to both ends', () => {
    expect([linked(KARI, MAILBOX), linked(MAILBOX, PHONE), linked(PHONE, OLA)]).toEqual([true, true, true]);
    expect(linked(KARI, OLA)).toBe(false);
  });

  itPlacesTraps([], [[KARI, OLA], ['ticketing_user:311', 'engagement_customer_profile:3011']], () => placement);

  it('is cut at its weakest link, each side kept together, and the cut link listed for review', async () => {
    const { fanOf } = placement;
    const fans = new Set([KARI, MAILBOX, PHONE, OLA].map((key) => fanOf.get(key)));
    expect(fans.size).toBe(2);
    const review = await queryWarehouse(placement.dataDir, `select record_a, record_b, match_probability from marts.fan_identity_review where reason = 'chain_cut'`);
    const cut = review.filter((row) => [KARI, MAILBOX, PHONE, OLA].includes(row.record_a));
    expect(cut).toHaveLength(1);
    expect(fanOf.get(cut[0]!.record_a)).not.toBe(fanOf.get(cut[0]!.record_b));
    const probabilities = await queryWarehouse(
      placement.dataDir,
      `select min(match_probability) as weakest from intermediate.int_identity_pairs where is_link and from_key in ('${KARI}', '${MAILBOX}', '${PHONE}', '${OLA}')`,
    );
    expect(cut[0]!.match_probability).toBe(probabilities[0]!.weakest);
  });

  it('passes the data test that no fan holds two people', async () => {
    const results = await runChecks({ dataDir: placement.dataDir, all: true });
    const test = results.filter((result) => result.name.includes('identity_fans_hold_no_contradiction'));
    expect(test.map((result) => result.status)).toEqual(['pass']);
  });
});

describe('identity explain on the chain', () => {
  const explain = (a: string, b: string) => withConnection(join(placement.dataDir, 'warehouse.duckdb'), (connection) => explainPair(connection, a, b));
  const records = [KARI, MAILBOX, PHONE, OLA];

  it('agrees with fan_identity_links on every pair: one fan exactly where the links put one', async () => {
    const pairs = records.flatMap((a, at) => records.slice(at + 1).map((b) => [a, b] as const));
    const explained = await withConnection(join(placement.dataDir, 'warehouse.duckdb'), async (connection) => {
      const all: PairExplanation[] = [];
      for (const [a, b] of pairs) all.push(await explainPair(connection, a, b));
      return all;
    });
    for (const [at, [a, b]] of pairs.entries()) {
      expect(explained[at]!.fans[0] === explained[at]!.fans[1], `${a} ${b}`).toBe(placement.fanOf.get(a) === placement.fanOf.get(b));
    }
  });

  it('reads the stored score of a linked pair, and says which link the chain rule cut', async () => {
    const pairs = await queryWarehouse(placement.dataDir, `select from_key, to_key, match_probability, match_weight from intermediate.int_identity_pairs where is_link`);
    const [cut] = await queryWarehouse(placement.dataDir, `select record_a, record_b from marts.fan_identity_review where reason = 'chain_cut'`);
    for (const pair of pairs.filter((stored) => records.includes(stored.from_key))) {
      const explained: PairExplanation = await explain(pair.to_key, pair.from_key);
      expect([explained.stored, explained.modelLinks]).toEqual([true, true]);
      expect(explained.matchProbability).toBe(pair.match_probability);
      expect(explained.matchWeight).toBe(pair.match_weight);
      const isCut = [pair.from_key, pair.to_key].sort().join(' ') === [cut!.record_a, cut!.record_b].sort().join(' ');
      expect(explained.chainCut, `${pair.from_key} ${pair.to_key}`).toBe(isCut);
      if (isCut) expect(formatExplanation(explained)).toContain('chain_cut');
    }
  });

  it('says a pair with no stored score was not scored at or above the review threshold, and names the veto', async () => {
    const explained = await explain(KARI, OLA);
    expect(explained.stored).toBe(false);
    expect(explained.modelLinks).toBeNull();
    expect(explained.vetoedBy).toEqual(['first_name different']);
    expect(explained.fans[0]).not.toBe(explained.fans[1]);
  });
});
