import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildModels, type ModelResult } from '../../src/models/index.js';
import { queryWarehouse } from '../helpers/warehouse.js';
import { clubBackground, placeTrapRecords, profile, type RawRecords, type TrapPlacement, user as ticketingUser, writeRawTables } from './identity-fixture.js';

/**
 * int_identity_ticketing_fields holds only what identity resolution reads, so a load that changes other
 * fields (a login, a member's used pool) stops there and the costly int_identity_records is not
 * rebuilt; a changed name goes all the way through. Built through the real models.
 */
const user = (id: number, fields: Record<string, unknown>) => ticketingUser(id, { phone: '', ...fields });
const member = (id: number, name: string, phone: string, used: number) => ({ id, last_update: '2026-01-01T00:00:00.000Z', name, phone, category: 'Silver', category_id: 2, ticket_pool_used: used });

const RAW: RawRecords = {
  ticketing_users: [
    ...clubBackground(),
    user(1, { name_first: 'Kari', name_last: 'Nordmann', email: 'kari@example.org', birthday: '1980-01-01', user_last_login: '2026-01-01T10:00:00Z' }),
    user(2, { name_first: 'Ola', name_last: 'Hansen', email: 'ola@example.org', birthday: '1975-05-05', user_last_login: '2026-01-01T10:00:00Z' }),
  ],
  ticketing_members: [member(11, 'Ola Hansen', '+4791234567', 3)],
  engagement_customer_profiles: [profile(21, { firstName: 'Kari', lastName: 'Nordmann', email: 'kari@example.org' })],
};

/** The same records a day later, with only fields identity resolution does not read changed. */
const LOGGED_IN: RawRecords = {
  ...RAW,
  ticketing_users: RAW.ticketing_users!.map((record) => ({ ...record, user_last_login: '2026-01-02T10:00:00Z', last_update: '2026-01-02T00:00:00.000Z' })),
  ticketing_members: RAW.ticketing_members!.map((record) => ({ ...record, ticket_pool_used: 4, last_update: '2026-01-02T00:00:00.000Z' })),
};

/** Kari's profile now carries another person's name and e-mail. */
const RENAMED: RawRecords = {
  ...LOGGED_IN,
  engagement_customer_profiles: [profile(21, { firstName: 'Ingrid', lastName: 'Nyflytter', email: 'ingrid@example.org' })],
};

const build = async (dataDir: string, records: RawRecords, extractedAt: string) => {
  await writeRawTables(join(dataDir, 'warehouse.duckdb'), records, extractedAt);
  const results = await buildModels({ dataDir, select: ['+fan_identity_links'] });
  return (model: string): ModelResult | undefined => results.find((result) => result.model === model);
};

describe('identity resolution after a load that changed other fields only', () => {
  let placed: TrapPlacement;
  let afterLogin: (model: string) => ModelResult | undefined;
  let afterRename: (model: string) => ModelResult | undefined;
  let fanOf: Map<string, string>;

  beforeAll(async () => {
    placed = await placeTrapRecords(RAW);
    afterLogin = await build(placed.dataDir, LOGGED_IN, '2026-06-02T00:00:00Z');
    afterRename = await build(placed.dataDir, RENAMED, '2026-06-03T00:00:00Z');
    const links = await queryWarehouse(placed.dataDir, `select system || ':' || record_id as record_key, fan_id from marts.fan_identity_links`);
    fanOf = new Map(links.map((link) => [link.record_key as string, link.fan_id as string]));
  });

  it('recomputes the fields to the same rows and leaves int_identity_records as it is', () => {
    expect(placed.fanOf.get('ticketing_user:1')).toBe(placed.fanOf.get('engagement_customer_profile:21'));
    expect(afterLogin('stg_ticketing__users')).toMatchObject({ status: 'ok' });
    expect(afterLogin('int_identity_ticketing_fields')).toMatchObject({ status: 'ok', changed: false });
    expect(afterLogin('int_identity_records')).toMatchObject({ status: 'unchanged' });
    expect(afterLogin('fan_identity_links')).toMatchObject({ status: 'unchanged' });
  });

  it('rebuilds identity resolution when a field it reads changed', () => {
    expect(afterRename('int_identity_engagement_fields')).toMatchObject({ status: 'ok', changed: true });
    expect(afterRename('int_identity_records')).toMatchObject({ status: 'ok' });
    expect(fanOf.get('ticketing_user:1')).not.toBe(fanOf.get('engagement_customer_profile:21'));
  });
});
