import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildModels } from '../../src/models/index.js';
import { tempDataDir } from '../helpers/cli.js';
import { queryWarehouse } from '../helpers/warehouse.js';
import { clubBackground, person as engagementPerson, profile, user, writeRawTables } from './identity-fixture.js';

/**
 * A handful of hand-made records, one per kind of link and per trap, built through the real
 * models with a club's trained identity model (identity-model-fixture.ts): which records end up
 * together, and how they were linked.
 */
const person = (id: number, customerProfileId: number, fields: Record<string, unknown>) => engagementPerson(id, customerProfileId, fields, 'facebook');
const member = (id: number, name: string, phone: string, category = 'Silver') => ({
  id, last_update: '2026-01-01T00:00:00.000Z', name, phone, category, category_id: category === 'Gold' ? 1 : 2,
});

const BACKGROUND = clubBackground();

const RAW = {
  ticketing_users: [
    ...BACKGROUND,
    user(101, { name_first: 'Kari', name_last: 'Hansen', email: ' Kari.Hansen@Gmail.com', phone: '+47 912 34 567', birthday: '1980-05-01' }),
    // a household mailbox: Ole and (in the engagement platform) Anna Berg share it
    user(102, { name_first: 'Ole', name_last: 'Berg', email: 'berg.family@online.no', phone: '90000002' }),
    // the same mailbox without a name: whose is it?
    user(103, { name_first: null, name_last: null, email: 'BERG.FAMILY@online.no ', phone: '' }),
    user(104, { name_first: 'Per', name_last: 'Olsen', email: 'per@olsen.no', phone: '93000004', birthday: '1975-03-03' }),
    // Per's second account: same address in capitals, phone as a tel: URI
    user(105, { name_first: 'Per', name_last: 'Olsen', email: 'PER@OLSEN.NO', phone: 'tel:+47-930-00-004' }),
    // namesakes sharing an address, told apart by birth date
    user(106, { name_first: 'Lars', name_last: 'Moen', email: 'lars.moen@gmail.com', phone: '91111106', birthday: '1990-01-01' }),
    user(107, { name_first: 'Lars', name_last: 'Moen', email: 'lars.moen@gmail.com', phone: '92222107', birthday: '1960-12-12' }),
    user(108, { name_first: 'Sigurd', name_last: 'Lie', email: 'sigurd@work.example', phone: '', birthday: '1985-07-07' }),
    user(109, { name_first: 'Nora', name_last: 'Dahl', email: 'nora@dahl.example', phone: '94444109' }),
  ],
  ticketing_members: [
    member(501, 'HANSEN, Kari', '0047 91234567', 'Gold'),
    member(502, 'Ole Berg', '90 00 00 02'),
    member(503, 'Tone Moe', '+4799999999'),
  ],
  ticketing_user_permissions: [
    { id_user: '101', id_consent_basic: 1, decision: false, name: 'Newsletter', last_update: '2024-01-01T00:00:00.000Z' },
    { id_user: '101', id_consent_basic: 2, decision: true, name: 'SMS', last_update: '2024-02-01T00:00:00.000Z' },
  ],
  engagement_customer_profiles: [
    profile(1001, { firstName: 'Kari', lastName: 'Hansen', email: 'kari.hansen@gmail.com', phoneNumber: null }),
    profile(1002, { firstName: 'Anna', lastName: 'Berg', email: 'berg.family@online.no', phoneNumber: '' }),
    // Sigurd signed up with a private address: only name and birth date tie him to user 108
    profile(1003, { firstName: 'Sigurd', lastName: 'Lie', dateOfBirth: '1985-07-07T00:00:00.000Z', email: 'slie@private.example' }),
    profile(1005, { firstName: '', lastName: '', email: null }),
    profile(1006, { firstName: 'Emma', lastName: 'Strand', email: 'emma@strand.example' }),
  ],
  engagement_people: [
    person(5001, 1001, { firstName: 'Kari', lastName: 'Hansen' }),
    person(5002, 1002, { firstName: 'Anna', lastName: 'Berg', emailAddress: 'berg.family@online.no', network: 'email' }),
    person(5003, 1003, { firstName: 'Sigurd', lastName: 'Lie', emailAddress: 'slie@private.example', network: 'email' }),
    // an identity whose externalId (as written, spaces around it) is the ticketing user id, on a
    // network of the club's naming: a hard link
    person(5004, 1005, { firstName: 'Per', lastName: 'Olsen', network: 'club-crm', systemId: null, externalId: ' 104 ' }),
    // a CRM numbering its own records, one of which happens to be user 109's id: another last
    // name, no hard link (docs/decisions.md "Hard links"), and nothing else ties them
    person(5005, 1006, { firstName: 'Emma', lastName: 'Strand', network: 'apiApp', systemId: 2, externalId: '109' }),
    // removed upstream: flagged by the loader, no longer anybody's record
    person(5009, 1001, { firstName: 'Kari', lastName: 'Hansen', _vanished_at: '2026-05-01T00:00:00Z' }),
    person(5010, 1001, { firstName: 'Kari', lastName: 'Hansen', _vanished_at: null }),
  ],
  // the texts the consents were given under, as the default mapping knows them: a consent whose
  // text is not loaded is unmapped, and its revocation would block every channel
  engagement_consent_texts: [
    { id: '201', type: 'consentTexts', text: 'Yes, I want to receive the club newsletter by e-mail.', isRequired: false, isEnabled: true },
    { id: '202', type: 'consentTexts', text: 'Yes, send me ticket offers and match reminders by SMS.', isRequired: false, isEnabled: true },
  ],
  engagement_consents: [
    { id: '7001', customerProfileId: 1001, identityId: 5001, isRevoked: false, createdDateTime: '2025-01-01T00:00:00.000Z', links: { consentText: '201' } },
    {
      id: '7002', customerProfileId: 1001, identityId: 5001, isRevoked: true, createdDateTime: '2023-01-01T00:00:00.000Z',
      revokedDateTime: '2025-03-01T00:00:00.000Z', links: { consentText: '202' },
    },
  ],
};

const EXPECTED_FANS = [
  ['engagement_customer_profile:1001', 'engagement_person:5001', 'engagement_person:5010', 'ticketing_member:501', 'ticketing_user:101'],
  ['ticketing_member:502', 'ticketing_user:102'],
  ['ticketing_user:103'],
  ['engagement_customer_profile:1002', 'engagement_person:5002'],
  ['engagement_customer_profile:1005', 'engagement_person:5004', 'ticketing_user:104', 'ticketing_user:105'],
  ['ticketing_user:106'],
  ['ticketing_user:107'],
  ['engagement_customer_profile:1003', 'engagement_person:5003', 'ticketing_user:108'],
  ['ticketing_user:109'],
  ['engagement_customer_profile:1006', 'engagement_person:5005'],
  ['ticketing_member:503'],
];

let dataDir: string;
let links: Record<string, any>[];

beforeAll(async () => {
  dataDir = tempDataDir();
  await writeRawTables(join(dataDir, 'warehouse.duckdb'), RAW);
  const results = await buildModels({ dataDir, select: ['+fan_identity_links', '+dim_fan'] });
  const failed = results.filter((result) => result.status !== 'ok');
  expect(failed.map((result) => `${result.schema}.${result.model}: ${result.error?.message ?? result.reason}`)).toEqual([]);
  links = await queryWarehouse(dataDir, `select fan_id, system || ':' || record_id as record_key, match_rule from marts.fan_identity_links`);
});

describe('identity resolution', () => {
  it('groups the records as the hard links, the model and its vetoes say', () => {
    const byFan = new Map<string, string[]>();
    for (const link of links) byFan.set(link.fan_id, [...(byFan.get(link.fan_id) ?? []), link.record_key]);
    const fans = [...byFan.values()].map((keys) => keys.sort()).sort((a, b) => a[0]!.localeCompare(b[0]!));
    const background = BACKGROUND.map((record) => [`ticketing_user:${record.id}`]);
    expect(fans).toEqual([...EXPECTED_FANS, ...background].sort((a, b) => a[0]!.localeCompare(b[0]!)));
  });

  it('records how each record was linked', () => {
    const rule = Object.fromEntries(links.map((link) => [link.record_key, link.match_rule]));
    expect(rule).toMatchObject({
      'engagement_person:5004': 'external_id',
      'ticketing_user:104': 'external_id',
      'engagement_person:5001': 'customer_profile',
      'engagement_person:5005': 'customer_profile',
      'ticketing_user:105': 'model_v1',
      'ticketing_member:501': 'model_v1',
      'ticketing_member:502': 'model_v1',
      'ticketing_user:108': 'model_v1',
      'ticketing_user:103': 'unmatched',
      'ticketing_member:503': 'unmatched',
    });
  });

  it('names a fan after the smallest record key of its cluster', () => {
    const kari = links.find((link) => link.record_key === 'ticketing_user:101')!;
    const digest = createHash('md5').update('engagement_customer_profile:1001').digest('hex');
    expect(kari.fan_id).toBe(`fan_${digest.slice(0, 16)}`);
  });

  it('describes each fan with its best contact, membership and latest consent per channel', async () => {
    const [kari] = await queryWarehouse(
      dataDir,
      `select * from marts.dim_fan where fan_id = (select fan_id from marts.fan_identity_links where system = 'ticketing_user' and record_id = '101')`,
    );
    expect(kari).toMatchObject({
      first_name: 'Kari',
      last_name: 'Hansen',
      email: 'kari.hansen@gmail.com',
      phone_e164: '+4791234567',
      birth_date: '1980-05-01',
      ticketing_user_id: '101',
      customer_profile_id: '1001',
      record_count: '5',
      ticketing_user_count: '1',
      ticketing_member_count: '1',
      engagement_customer_profile_count: '1',
      engagement_person_count: '2',
      is_member: true,
      member_category_name: 'Gold',
      // ticketing said no in 2024, the platform yes in 2025
      has_email_consent: true,
      // ticketing said yes in 2024, the platform's consent was revoked in 2025
      has_sms_consent: false,
      has_push_consent: null,
    });
    const [counts] = await queryWarehouse(dataDir, 'select count(*) as fans, count(distinct fan_id) as ids from marts.dim_fan');
    const fans = String(EXPECTED_FANS.length + BACKGROUND.length);
    expect(counts).toEqual({ fans, ids: fans });
  });
});
