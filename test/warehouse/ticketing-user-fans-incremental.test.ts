import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildModels, type ModelResult } from '../../src/models/index.js';
import { tempDataDir } from '../helpers/cli.js';
import { copyWarehouse, queryWarehouse, tableSnapshot } from '../helpers/warehouse.js';
import { clubBackground, type RawRecords, user as ticketingUser, writeRawTables } from './identity-fixture.js';

/**
 * int_ticketing_user_fans takes only the accounts int_identity_clusters computed since its last
 * build and deletes the accounts gone, yet must hold what a full rebuild would: an account that
 * moves to another fan (it takes another's name, e-mail and phone), a new one, and the 60 others
 * left as they were; then an account deleted from raw (as an erasure leaves it: ticketing
 * records never leave incrementally) after identity alone was rebuilt in full, so the accounts'
 * build finds it gone from int_identity_clusters.
 */
const user = (id: number, fields: Record<string, unknown>) => ticketingUser(id, { phone: '', ...fields });
const T0 = '2026-06-01T00:00:00Z';
const T1 = '2026-06-02T00:00:00Z';
/** A record as the last load left it, read before: the next build has no reason to read it again. */
const unread = <T extends Record<string, unknown>>(record: T) => ({ ...record, _extracted_at: T0 });

const MARIT = user(1, { name_first: 'Marit', name_last: 'Solbakken', email: 'marit.solbakken@example.org', phone: '41234567' });
const HENRIK = user(2, { name_first: 'Henrik', name_last: 'Dalsrud', email: 'henrik.dalsrud@example.org', phone: '42345678' });
const ODDNY = user(3, { name_first: 'Oddny', name_last: 'Bratlie', email: 'oddny.bratlie@example.org', phone: '43456789' });

const RAW: RawRecords = { ticketing_users: [...clubBackground(), MARIT, HENRIK, ODDNY] };

/** A day later: Henrik's account becomes Marit's second one, and a new one comes. */
const CHANGED_USERS = [
  ...clubBackground().map(unread),
  unread(MARIT),
  user(2, { name_first: 'Marit', name_last: 'Solbakken', email: 'marit.solbakken@example.org', phone: '41234567' }),
  user(4, { name_first: 'Sigvald', name_last: 'Hovdenak', email: 'sigvald.hovdenak@example.org', phone: '44567890' }),
];
const CHANGED: RawRecords = { ticketing_users: [...CHANGED_USERS, unread(ODDNY)] };
/** Oddny's account erased. */
const ERASED: RawRecords = { ticketing_users: CHANGED_USERS };

const COMPARED = ['intermediate.int_identity_clusters', 'intermediate.int_ticketing_user_fans'];

const buildOk = async (dataDir: string, options: { fullRefresh?: boolean; select?: string[] } = {}): Promise<ModelResult[]> => {
  const results = await buildModels({ dataDir, select: ['+int_ticketing_user_fans'], ...options });
  expect(results.filter((result) => result.status !== 'ok' && result.status !== 'unchanged').map((result) => `${result.model}: ${result.error?.message ?? result.reason}`)).toEqual([]);
  return results;
};

/** Builds incrementally, then a copy of the same warehouse with --full-refresh; both snapshots. */
async function buildBoth(dataDir: string): Promise<{ results: ModelResult[]; incremental: Map<string, string>; full: Map<string, string> }> {
  const rebuilt = copyWarehouse(dataDir);
  const results = await buildOk(dataDir);
  const incremental = await tableSnapshot(dataDir, COMPARED);
  await buildOk(rebuilt, { fullRefresh: true });
  return { results, incremental, full: await tableSnapshot(rebuilt, COMPARED) };
}

const fanOf = async (dataDir: string): Promise<Map<number, string>> =>
  new Map((await queryWarehouse(dataDir, 'select user_id, fan_id from intermediate.int_ticketing_user_fans')).map((row) => [Number(row.user_id), String(row.fan_id)]));

describe('int_ticketing_user_fans built incrementally', () => {
  let firstBuild: ModelResult[];
  let before: Map<number, string>;
  let after: Map<number, string>;
  let erasedFans: Map<number, string>;
  let changed: Awaited<ReturnType<typeof buildBoth>>;
  let erased: Awaited<ReturnType<typeof buildBoth>>;

  beforeAll(async () => {
    const dataDir = tempDataDir();
    const warehouse = join(dataDir, 'warehouse.duckdb');
    await writeRawTables(warehouse, RAW, T0);
    firstBuild = await buildOk(dataDir);
    before = await fanOf(dataDir);

    await writeRawTables(warehouse, CHANGED, T1);
    changed = await buildBoth(dataDir);
    after = await fanOf(dataDir);

    await writeRawTables(warehouse, ERASED, T1);
    await buildOk(dataDir, { fullRefresh: true, select: ['+int_identity_clusters'] });
    erased = await buildBoth(dataDir);
    erasedFans = await fanOf(dataDir);
  }, 300_000);

  it('takes every account in its first build and only the changed ones after', () => {
    expect(firstBuild.find((result) => result.model === 'int_ticketing_user_fans')).toMatchObject({ status: 'ok', rows: 63 });
    const built = changed.results.find((result) => result.model === 'int_ticketing_user_fans')!;
    expect(built).toMatchObject({ status: 'ok', materialized: 'incremental', changed: true });
    // Henrik's account, Sigvald's, and whatever else shares their components: not the 60 others
    expect(built.rows).toBeGreaterThan(0);
    expect(built.rows).toBeLessThan(10);
  });

  it('moves an account to its new fan and adds the new one', () => {
    expect(before.get(2)).not.toBe(before.get(1));
    expect(after.get(2)).toBe(after.get(1));
    expect(before.has(4)).toBe(false);
    expect(after.has(4)).toBe(true);
    expect(after.size).toBe(64);
  });

  it.each(COMPARED)('leaves %s as a full rebuild does', (relation) => {
    expect(changed.incremental.get(relation)!.length).toBeGreaterThan(0);
    expect(changed.incremental.get(relation)).toBe(changed.full.get(relation));
  });

  it('drops the account gone from the fans', () => {
    expect(erased.results.find((result) => result.model === 'int_ticketing_user_fans')).toMatchObject({ status: 'ok', changed: true });
    expect(after.has(3)).toBe(true);
    expect(erasedFans.has(3)).toBe(false);
    expect(erasedFans.size).toBe(63);
  });

  it.each(COMPARED)('leaves %s as a full rebuild does after an account was erased', (relation) => {
    expect(erased.incremental.get(relation)).toBe(erased.full.get(relation));
  });
});
