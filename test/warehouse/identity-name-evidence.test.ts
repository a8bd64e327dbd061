import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildModels } from '../../src/models/index.js';
import { queryWarehouse, tableSnapshot } from '../helpers/warehouse.js';
import { born, itPlacesTraps, placeTrapRecords, profile, type TrapPlacement, user as ticketingUser, writeRawTables } from './identity-fixture.js';

/**
 * Trap records for links on a name without a shared e-mail or phone, built through the real
 * models with a club's trained identity model (identity-model-fixture.ts): how much a name
 * weighs by how many people carry it (term frequencies), what an address and a birth date add,
 * the namesakes that must stay apart, and how the pairs show to analysts.
 */
const user = (id: number, fields: Record<string, unknown>) => ticketingUser(id, { phone: '', ...fields });
const member = (id: number, name: string, phone: string) => ({ id, last_update: '2026-01-01T00:00:00.000Z', name, phone, category: 'Silver', category_id: 2 });

// A fan base where "Kari Nordmann" is on more records than name_birth_date allows (150), each
// with a birth date of their own, and Olsen is a common last name: "Kari Olsen" is then a name
// two people may well carry by chance (unique_name's max_name_expected_records).
const namesakes = Array.from({ length: 155 }, (_, at) =>
  user(1000 + at, { name_first: 'Kari', name_last: 'Nordmann', email: `kari.nordmann.${at}@example.org`, birthday: new Date(Date.UTC(1950, 0, 1 + at)).toISOString().slice(0, 10) }),
);
const olsens = ['Anders', 'Bente', 'Frode', 'Hege', 'Jonas', 'Lise', 'Rune', 'Siri'].map((first, at) =>
  user(1200 + at, { name_first: first, name_last: 'Olsen', email: `olsen.${at}@example.org` }),
);

const RAW = {
  ticketing_users: [
    ...namesakes,
    ...olsens,
    // one common name and birth date at one address, the profile signed up elsewhere: name_address_birth_date
    user(301, { name_first: 'Kari', name_last: 'Nordmann', email: 'kari.n@gmail.com', birthday: '1977-07-07', address: 'Kirkeveien 12', zip_code: '7011' }),
    // one name at one address, no birth dates: name_address
    user(302, { name_first: 'Kari', name_last: 'Nordmann', email: 'knordmann@online.no', address: 'Fjordgata 3', zip_code: '5003' }),
    // father and son of one name at one address, told apart by birth date
    user(303, { name_first: 'Arne', name_last: 'Vold', email: 'arne.vold@online.no', birthday: '1950-01-01', address: 'Storgata 7', zip_code: '0150' }),
    // a rare name, held once by each system, nothing differing: unique_name (the user has no phone)
    user(304, { name_first: 'Vebjørn', name_last: 'Tangen-Aas', email: 'vebjorn.ta@online.no' }),
    // a rare name the ticketing system holds for two people: the member is neither's
    user(305, { name_first: 'Synnøve', name_last: 'Fjeld', email: 'synnove.f@gmail.com' }),
    user(306, { name_first: 'Synnøve', name_last: 'Fjeld', email: 'fjeld.s@hotmail.com' }),
    // a rare name on two phones: the profile without a phone cannot be told whose it is
    user(307, { name_first: 'Torunn', name_last: 'Brekke', email: 'torunn.b@gmail.com', phone: '41000307' }),
  ],
  ticketing_members: [
    member(601, 'TANGEN-AAS, Vebjørn', '41000601'),
    member(602, 'Synnøve Fjeld', '41000602'),
    member(603, 'Torunn Brekke', '41000603'),
    // a name of common words, once in each system, nothing differing: no evidence of one person
    member(604, 'Kari Olsen', '41000604'),
  ],
  engagement_customer_profiles: [
    profile(2301, { firstName: 'Kari', lastName: 'Nordmann', email: 'kari@work.example', phoneNumber: '41002301', dateOfBirth: born('1977-07-07'), street: 'KIRKEVEIEN 12', postalCode: '7011' }),
    profile(2302, { firstName: 'KARI', lastName: 'NORDMANN', email: 'kari.nordmann@work.example', street: 'Fjordgata 3', postalCode: '5003' }),
    profile(2303, { firstName: 'Arne', lastName: 'Vold', email: 'arne@vold.example', dateOfBirth: born('1980-02-02'), street: 'Storgata 7', postalCode: '0150' }),
    profile(2307, { firstName: 'Torunn', lastName: 'Brekke', email: 'torunn.brekke@work.example' }),
    profile(2304, { firstName: 'Kari', lastName: 'Olsen', email: 'kari.olsen@work.example' }),
  ],
};

const SAME_FAN: [string, string, string][] = [
  // a common name is little evidence, but a birth date and an address beside it are much
  ['ticketing_user:301', 'engagement_customer_profile:2301', 'model_v1'],
];
const APART: [string, string][] = [
  // father and son of one name at one address: their birth dates weigh against it more than the address for it
  ['ticketing_user:303', 'engagement_customer_profile:2303'],
  // a common name at one address with nothing else: too little
  ['ticketing_user:302', 'engagement_customer_profile:2302'],
  ['ticketing_member:602', 'ticketing_user:305'],
  ['ticketing_member:602', 'ticketing_user:306'],
  ['engagement_customer_profile:2307', 'ticketing_user:307'],
  ['engagement_customer_profile:2307', 'ticketing_member:603'],
  ['ticketing_member:604', 'engagement_customer_profile:2304'],
];

let evidence: Record<string, any>[];
let pairs: Record<string, any>[];
let review: Record<string, any>[];
let placement: TrapPlacement;

beforeAll(async () => {
  placement = await placeTrapRecords(RAW, ['+fan_identity_evidence', '+fan_identity_review']);
  evidence = await queryWarehouse(placement.dataDir, `select * from marts.fan_identity_evidence`);
  pairs = await queryWarehouse(placement.dataDir, `select * from intermediate.int_identity_pairs`);
  review = await queryWarehouse(placement.dataDir, `select * from marts.fan_identity_review`);
});

const keysOf = (row: Record<string, any>) => [row.from_key ?? row.record_a, row.to_key ?? row.record_b].sort().join(' ');

describe('links on a name, weighed by how many people carry it', () => {
  itPlacesTraps(SAME_FAN, APART, () => placement);

  it('shows the link with each comparison\'s level and weight, the common name weighing next to nothing', () => {
    const link = evidence.find((row) => keysOf(row) === 'engagement_customer_profile:2301 ticketing_user:301')!;
    expect(link).toMatchObject({ match_rule: 'model_v1', first_name_level: 'exact', last_name_level: 'exact', birth_date_level: 'exact', address_level: 'same' });
    const weight = (name: string) => Number(link[`${name}_weight`] ?? 0);
    expect(Math.abs(weight('last_name'))).toBeLessThan(1);
    expect(weight('address')).toBeGreaterThan(10);
    const parts = ['prior', 'first_name', 'last_name', 'birth_date', 'email', 'phone', 'address'].map(weight);
    expect(Number(link.match_weight)).toBeCloseTo(parts.reduce((sum, part) => sum + part, 0), 6);
    expect(link.from_values).toContain('address kirkeveien 12, 7011');
  });

  it('weighs an agreeing rare name far above a common one', () => {
    const rare = pairs.find((row) => keysOf(row) === 'ticketing_member:601 ticketing_user:304')!;
    const common = pairs.find((row) => keysOf(row) === 'engagement_customer_profile:2301 ticketing_user:301')!;
    expect(rare.first_name_level).toBe(common.first_name_level);
    expect(Number(rare.first_name_weight)).toBeGreaterThan(Number(common.first_name_weight) + 4);
    expect(Number(rare.last_name_weight)).toBeGreaterThan(Number(common.last_name_weight) + 4);
  });

  it('lists a pair on a rare name alone for review, not as one fan', () => {
    const listed = review.find((row) => keysOf(row) === 'ticketing_member:601 ticketing_user:304');
    expect(listed).toMatchObject({ reason: 'review_band' });
    expect(Number(listed!.match_probability)).toBeGreaterThanOrEqual(0.5);
    expect(Number(listed!.match_probability)).toBeLessThan(0.95);
    expect(listed!.strongest_comparison).toMatch(/^(first|last)_name exact/);
    expect(placement.fanOf.get('ticketing_user:304')).not.toBe(placement.fanOf.get('ticketing_member:601'));
  });
});

// The same records a build later: a second user of 304's rare name, which makes it less rare;
// and profile 2311 moved to user 311's address.
const MOVED = {
  ...RAW,
  ticketing_users: [
    ...RAW.ticketing_users,
    user(311, { name_first: 'Kari', name_last: 'Nordmann', email: 'kari.nordmann@epost.example', address: 'Elvegata 5', zip_code: '9008', birthday: '1988-08-08' }),
  ],
  engagement_customer_profiles: [
    ...RAW.engagement_customer_profiles,
    profile(2311, { firstName: 'Kari', lastName: 'Nordmann', email: 'kn@jobb.example', street: 'Parkveien 1', postalCode: '9008', dateOfBirth: born('1988-08-08') }),
  ],
};
const CHANGED = {
  ...MOVED,
  ticketing_users: [...MOVED.ticketing_users, user(308, { name_first: 'Vebjørn', name_last: 'Tangen-Aas', email: 'vebjorn@tangen.example', birthday: '1991-03-04' })],
  engagement_customer_profiles: MOVED.engagement_customer_profiles.map((record) => (record.id === '2311' ? { ...record, street: 'ELVEGATA 5' } : record)),
};

/** Everything identity matching keeps, to compare builds. */
const IDENTITY_TABLES = ['intermediate.int_identity_pairs', 'intermediate.int_identity_edges', 'intermediate.int_identity_clusters', 'marts.fan_identity_links'];

describe('a build after only an address or a name\'s rarity changed', () => {
  let before: TrapPlacement;
  let pairsBefore: Record<string, any>[];
  let pairsAfter: Record<string, any>[];
  let incremental: Map<string, string>;
  let full: Map<string, string>;
  let after: Map<string, string>;

  beforeAll(async () => {
    before = await placeTrapRecords(MOVED);
    pairsBefore = await queryWarehouse(before.dataDir, `select * from intermediate.int_identity_pairs`);
    await writeRawTables(join(before.dataDir, 'warehouse.duckdb'), CHANGED, '2026-06-02T00:00:00Z');
    const results = await buildModels({ dataDir: before.dataDir, select: ['+fan_identity_links'] });
    expect(results.filter((result) => result.status === 'failed')).toEqual([]);
    incremental = await tableSnapshot(before.dataDir, IDENTITY_TABLES);
    pairsAfter = await queryWarehouse(before.dataDir, `select * from intermediate.int_identity_pairs`);
    after = new Map((await queryWarehouse(before.dataDir, `select system || ':' || record_id as record_key, fan_id from marts.fan_identity_links`)).map((row) => [row.record_key as string, row.fan_id as string]));
    await buildModels({ dataDir: before.dataDir, select: ['+fan_identity_links'], fullRefresh: true });
    full = await tableSnapshot(before.dataDir, IDENTITY_TABLES);
  });

  // How common a name is was frozen with the model version (frozen-statistics.ts): a pair's score
  // depends on its two records alone until the next version, so the pair is kept as it was.
  it('weighs the rare name as the model version froze it, though a second user now carries it', async () => {
    const probability = (rows: Record<string, any>[]) => Number(rows.find((row) => keysOf(row) === 'ticketing_member:601 ticketing_user:304')?.match_probability ?? 0);
    expect(probability(pairsBefore)).toBeGreaterThanOrEqual(0.5);
    expect(probability(pairsAfter)).toBe(probability(pairsBefore));
    const spelling = `(select last_name_spelling from intermediate.int_identity_records where record_key = 'ticketing_user:304')`;
    const [frozen] = await queryWarehouse(before.dataDir, `select people from meta.identity_model_term_frequencies where word = ${spelling}`);
    const [live] = await queryWarehouse(before.dataDir, `select people from macros.identity_term_frequencies('intermediate.int_identity_records') where word = ${spelling}`);
    expect(Number(live!.people)).toBe(Number(frozen!.people) + 1);
  });

  it('links the records of one name that an address change brought together', () => {
    expect(before.fanOf.get('ticketing_user:311')).not.toBe(before.fanOf.get('engagement_customer_profile:2311'));
    expect(after.get('ticketing_user:311')).toBe(after.get('engagement_customer_profile:2311'));
  });

  it.each(IDENTITY_TABLES)('leaves %s exactly as a full rebuild does', (relation) => {
    expect(incremental.get(relation)!.length).toBeGreaterThan(0);
    expect(incremental.get(relation)).toBe(full.get(relation));
  });
});
