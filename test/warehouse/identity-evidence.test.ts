import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildModels } from '../../src/models/index.js';
import { tempDataDir } from '../helpers/cli.js';
import { queryWarehouse } from '../helpers/warehouse.js';
import { born, clubBackground, person, profile, user, writeRawTables } from './identity-fixture.js';

/**
 * marts.fan_identity_evidence and marts.fan_identity_review on hand-made records, built through
 * the real models with a club's trained identity model (identity-model-fixture.ts): why two
 * records are one fan, and which pairs an analyst should look at.
 */
const member = (id: number, name: string, phone: string) => ({ id, last_update: '2026-01-01T00:00:00.000Z', name, phone, category: 'Silver', category_id: 2 });

const RAW = {
  ticketing_users: [
    ...clubBackground(),
    user(101, { name_first: 'Kari', name_last: 'Hansen', email: 'kari.hansen@gmail.com', phone: '' }),
    // a typo in the last name on the platform: only the similarity rule joins the two groups
    user(204, { name_first: 'Magnus', name_last: 'Johansen', email: 'magnus.j@gmail.com', phone: '91234204', birthday: '1982-04-04' }),
    // a household: one phone, two first names alike enough to deserve a look but two edits apart,
    // so the household guard keeps them apart (one edit, Kristin / Kristine, is one fan by phone_name)
    user(206, { name_first: 'Kristin', name_last: 'Moe', email: 'kristin.moe@gmail.com', phone: '95555555' }),
    // namesakes one letter apart with the same birth date but different phones
    user(207, { name_first: 'Emil', name_last: 'Strand', email: 'emil.s@gmail.com', phone: '96666661', birthday: '1999-09-09' }),
  ],
  ticketing_members: [member(504, 'Magnus Johansen', '+47 912 34 204')],
  engagement_customer_profiles: [
    profile(1001, { firstName: 'Kari', lastName: 'Hansen', email: 'Kari.Hansen@gmail.com ' }),
    profile(2004, { firstName: 'Magnus', lastName: 'Johnasen', email: 'mj@outlook.com', dateOfBirth: born('1982-04-04') }),
    profile(2006, { firstName: 'Kristiane', lastName: 'Moe', email: 'kristiane.moe@gmail.com', phoneNumber: '+47 955 55 555' }),
    profile(2007, { firstName: 'Emil', lastName: 'Strnad', email: 'strnad@gmail.com', phoneNumber: '97777772', dateOfBirth: born('1999-09-09') }),
    // a profile whose person spells the name otherwise: the profile makes them one, names or not
    profile(3008, { firstName: 'Ola', lastName: 'Nordmann', email: 'ola@nordmann.no' }),
  ],
  engagement_people: [
    person(6004, 2004, { firstName: 'Magnus', lastName: 'Johnasen', emailAddress: 'mj@outlook.com' }),
    person(6008, 3008, { firstName: 'Ole', lastName: 'Nordman', emailAddress: 'ole.n@example.com' }),
  ],
};

let dataDir: string;
let evidence: Record<string, any>[];
let review: Record<string, any>[];

beforeAll(async () => {
  dataDir = tempDataDir();
  await writeRawTables(join(dataDir, 'warehouse.duckdb'), RAW);
  const results = await buildModels({ dataDir, select: ['+fan_identity_review', '+fan_identity_evidence', '+dim_fan'] });
  const failed = results.filter((result) => result.status !== 'ok');
  expect(failed.map((result) => `${result.schema}.${result.model}: ${result.error?.message ?? result.reason}`)).toEqual([]);
  evidence = await queryWarehouse(dataDir, 'select * from marts.fan_identity_evidence');
  review = await queryWarehouse(dataDir, 'select * from marts.fan_identity_review');
});

const pair = (row: Record<string, any>, keys: [string, string]) => [row.from_key ?? row.record_a, row.to_key ?? row.record_b].sort().join(' ') === [...keys].sort().join(' ');

describe('fan_identity_evidence', () => {
  // the view carries no data tests: its columns are its sources', tested there (every record a
  // fan: int_identity_records -> int_identity_clusters; every fan in dim_fan: fan_identity_links)
  it('gives every link its fan, keys, rule, probability and whether it joins, one row per link and same-fan override', async () => {
    const [counts] = await queryWarehouse(dataDir, `select (select count(*) from intermediate.int_identity_edges) + (select count(*) from intermediate.int_identity_overrides where decision = 'same') as links`);
    expect(evidence).toHaveLength(Number(counts!.links));
    for (const row of evidence) {
      expect([row.fan_id, row.from_key, row.to_key, row.match_rule, row.rule_rank, row.match_probability, row.is_joined].some((value) => value === null || value === undefined), JSON.stringify(row)).toBe(false);
    }
    const [fans] = await queryWarehouse(dataDir, `select count(*) as missing from marts.fan_identity_evidence anti join marts.dim_fan using (fan_id)`);
    expect(Number(fans!.missing)).toBe(0);
  });

  it('holds the link by e-mail with each comparison\'s level and weight, and the values each record brought', () => {
    const link = evidence.find((row) => pair(row, ['ticketing_user:101', 'engagement_customer_profile:1001']))!;
    expect(link).toMatchObject({ match_rule: 'model_v1', email_level: 'exact', first_name_level: 'exact', last_name_level: 'exact', phone_level: 'missing', is_joined: true });
    expect(Number(link.email_weight)).toBeGreaterThan(5);
    expect(Number(link.match_probability)).toBeGreaterThanOrEqual(0.95);
    expect(link.from_values).toContain('email kari.hansen@gmail.com');
    expect(link.to_values).toContain('email kari.hansen@gmail.com');
    expect(link.from_values).toContain('first name kari');
  });

  it('holds the link through a typo with the typo\'s level', () => {
    const link = evidence.find((row) => pair(row, ['ticketing_user:204', 'engagement_customer_profile:2004']))!;
    expect(link).toMatchObject({ match_rule: 'model_v1', last_name_level: 'one_edit', birth_date_level: 'exact' });
    const values = [link.from_values, link.to_values];
    expect(values.some((side) => side.includes('last name johansen'))).toBe(true);
    expect(values.some((side) => side.includes('last name johnasen'))).toBe(true);
  });

  it('holds a hard link by its kind, without comparisons', () => {
    const link = evidence.find((row) => pair(row, ['engagement_customer_profile:3008', 'engagement_person:6008']))!;
    expect(link).toMatchObject({ match_rule: 'customer_profile', first_name_level: null, match_weight: null });
    expect(Number(link.match_probability)).toBe(1);
  });

  it('has one row per link, every one inside its fan', async () => {
    const [edges] = await queryWarehouse(dataDir, 'select count(*) as links from intermediate.int_identity_edges');
    expect(evidence.length).toBe(Number(edges!.links));
    expect(evidence.every((row) => row.is_joined)).toBe(true);
  });
});

describe('fan_identity_link_weights', () => {
  it('is the evidence without what each record brought, row for row', async () => {
    const rows = (sql: string) => queryWarehouse(dataDir, `${sql} order by all`);
    const weights = await rows('select * from marts.fan_identity_link_weights');
    expect(weights.length).toBeGreaterThan(0);
    expect(weights).toEqual(await rows('select * exclude (from_values, to_values) from marts.fan_identity_evidence'));
  });
});

describe('fan_identity_review', () => {
  it('lists namesakes one letter apart whose phones differ, in the review band, with what speaks for and against them', () => {
    const row = review.find((candidate) => pair(candidate, ['ticketing_user:207', 'engagement_customer_profile:2007']))!;
    expect(row).toMatchObject({ reason: 'review_band' });
    expect(Number(row.match_probability)).toBeGreaterThanOrEqual(0.5);
    expect(Number(row.match_probability)).toBeLessThan(0.95);
    expect(row.strongest_comparison).toMatch(/^birth_date exact/);
    expect(row.weakest_comparison).toMatch(/^phone different/);
    expect(row.fan_id_a).not.toBe(row.fan_id_b);
    expect([row.values_a, row.values_b].join(' ')).toContain('phone 97777772');
  });

  it('lists only pairs in the review band, in different fans', () => {
    expect(review.length).toBeGreaterThan(0);
    for (const row of review) {
      expect(row.reason).toBe('review_band');
      expect(row.fan_id_a).not.toBe(row.fan_id_b);
    }
  });

  it('never lists a hard link, however the names differ, nor a pair the model links', () => {
    expect(review.filter((row) => row.record_a.endsWith(':3008') || row.record_b.endsWith(':6008'))).toEqual([]);
    expect(review.filter((row) => pair(row, ['ticketing_user:101', 'engagement_customer_profile:1001']))).toEqual([]);
  });
});
