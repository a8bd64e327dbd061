import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/simulator.js';
import { clockAhead, runCli } from '../helpers/cli.js';
import { sharedWarehouse } from '../helpers/shared-warehouse.js';
import { startTestSimulator } from '../helpers/simulator.js';
import { recordsByPerson } from '../helpers/truth.js';
import { queryWarehouse } from '../helpers/warehouse.js';
import { cliEnv } from '../warehouse/identity-fixture.js';

/** The default test simulator's options: the warehouse export-person's test reads too. */
const SIMULATOR = { scale: 0.02, seed: 42 };

let sim: Simulator;
let dataDir: string;
let env: Record<string, string>;
let userId: string;
let profileId: string;
let email: string;
let phone: string;

beforeAll(async () => {
  dataDir = await sharedWarehouse({ simulator: SIMULATOR });
  sim = await startTestSimulator(SIMULATOR);
  env = cliEnv(sim, dataDir);
  const byPerson = await recordsByPerson(sim);
  const buyers = new Set((await queryWarehouse(dataDir, 'select distinct cast(user_aquired_id as varchar) as id from raw.ticketing_tickets')).map((row) => String(row.id)));
  const withPhone = new Set((await queryWarehouse(dataDir, "select cast(id as varchar) as id from raw.ticketing_users where length(phone) > 6 and email like '%@%'")).map((row) => String(row.id)));
  // A person with a ticketing account that bought tickets, has a phone, and an engagement profile.
  const person = [...byPerson.values()].find((records) => {
    const user = records.find((link) => link.system === 'ticketing_user');
    return records.some((link) => link.system === 'engagement_customer_profile') && user !== undefined && buyers.has(user.recordId) && withPhone.has(user.recordId);
  });
  if (!person) throw new Error('the simulator has no person with a ticket buyer, a phone and a profile');
  userId = person.find((link) => link.system === 'ticketing_user')!.recordId;
  profileId = person.find((link) => link.system === 'engagement_customer_profile')!.recordId;
  const [user] = await queryWarehouse(dataDir, `select email, phone from raw.ticketing_users where id = ${Number(userId)}`);
  email = String(user!.email);
  phone = String(user!.phone);
}, 600_000);

afterAll(async () => {
  await sim?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** Every file under the data dir, with its path. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/** Where `needle` (lowercased) still is: Parquet rows and warehouse rows as text, and the bytes of every other file. */
async function whereIs(needle: string): Promise<string[]> {
  const found: string[] = [];
  const lowered = needle.toLowerCase();
  const parquet = await queryWarehouse(
    dataDir,
    `select filename from read_parquet('${dataDir}/raw/**/*.parquet', union_by_name = true, filename = true, hive_partitioning = false) as t
     where contains(lower(cast(t as varchar)), '${lowered}') group by filename`,
  );
  found.push(...parquet.map((row) => String(row.filename)));
  const tables = await queryWarehouse(dataDir, "select table_schema || '.' || table_name as relation from information_schema.tables where table_catalog = current_database()");
  // One statement over every table and view: a query each would attach the warehouse a hundred times.
  const counts = tables.map(({ relation }) => `select '${String(relation)}' as relation, count(*) as n from ${String(relation)} as t where contains(lower(cast(t as varchar)), '${lowered}')`);
  const hits = await queryWarehouse(dataDir, `select relation from (${counts.join(' union all ')}) where n > 0 order by relation`);
  found.push(...hits.map((row) => String(row.relation)));
  for (const path of await filesUnder(dataDir)) {
    if (path.endsWith('.parquet')) continue;
    if ((await readFile(path, 'latin1')).toLowerCase().includes(lowered)) found.push(path);
  }
  return found;
}

describe('fanlake forget', { timeout: 300_000 }, () => {
  it('lists the records of a person and why, changing nothing; exits 1 when nobody matches', async () => {
    const before = await readFile(join(dataDir, 'warehouse.duckdb'));
    const listed = await runCli(['forget', '--email', email.toUpperCase()], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`ticketing_user:${userId}`);
    expect(listed.stdout).toContain(`engagement_customer_profile:${profileId}`);
    expect(listed.stdout).toMatch(/raw\.ticketing_tickets .*user_aquired_id = ticketing_user:/);
    expect(listed.stderr).toMatch(/nothing changed/);
    const byRecord = await runCli(['forget', '--record', `engagement_customer_profile:${profileId}`], env);
    expect(byRecord.code, byRecord.stderr).toBe(0);
    expect(byRecord.stdout).toContain(`ticketing_user:${userId}`);
    expect((await readFile(join(dataDir, 'warehouse.duckdb'))).equals(before)).toBe(true);
    const nobody = await runCli(['forget', '--email', 'nobody@nowhere.invalid', '--apply'], env);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toMatch(/no fan matches --email/);
  });

  it('with --apply erases the person from raw runs, quarantine, the warehouse and the logs; the rest stays; check passes; a later run keeps them out', async () => {
    const ticketsBefore = await queryWarehouse(dataDir, `select count(*) as n, count(*) filter (where user_aquired_id = ${Number(userId)} or user_held_id = ${Number(userId)}) as theirs from raw.ticketing_tickets`);
    const usersBefore = await queryWarehouse(dataDir, 'select count(*) as n from raw.ticketing_users');
    expect(Number(ticketsBefore[0]!.theirs)).toBeGreaterThan(0);
    // The scan finds them where they are: raw files and tables, models, the warehouse file's bytes.
    expect(await whereIs(email)).toEqual(expect.arrayContaining([expect.stringContaining('/raw/ticketing/users/'), 'raw.ticketing_users', 'intermediate.int_identity_records', join(dataDir, 'warehouse.duckdb')]));
    expect((await whereIs(phone)).length).toBeGreaterThan(0);

    // Renderings as report leaves them: one that names the person, one that does not.
    const naming = join(dataDir, 'reports', 'top-fans', '20260101T000000.000Z', 'summary.md');
    const other = join(dataDir, 'reports', 'revenue', '20260101T000000.000Z', 'summary.md');
    await mkdir(dirname(naming), { recursive: true });
    await mkdir(dirname(other), { recursive: true });
    await writeFile(naming, `| fan | e-mail |\n| 1 | ${email} |\n`);
    await writeFile(other, '| month | revenue |\n');

    const applied = await runCli(['forget', '--email', email, '--apply'], env);
    expect(applied.code, applied.stderr).toBe(0);
    expect(await whereIs(email)).toEqual([]);
    expect(await whereIs(phone)).toEqual([]);
    expect(existsSync(naming)).toBe(false);
    expect(existsSync(other)).toBe(true);
    expect(applied.stderr).toMatch(/run fanlake report/);
    // Their record keys are left only in the tombstones, which keep them out of later loads.
    expect(await whereIs(`ticketing_user:${userId}`)).toEqual([join(dataDir, 'privacy', 'tombstones.json')]);
    const tickets = await queryWarehouse(dataDir, `select count(*) as n, count(*) filter (where user_aquired_id = ${Number(userId)} or user_held_id = ${Number(userId)}) as theirs from raw.ticketing_tickets`);
    expect(Number(tickets[0]!.theirs)).toBe(0);
    expect(Number(tickets[0]!.n)).toBe(Number(ticketsBefore[0]!.n) - Number(ticketsBefore[0]!.theirs));
    expect(Number((await queryWarehouse(dataDir, 'select count(*) as n from raw.ticketing_users'))[0]!.n)).toBe(Number(usersBefore[0]!.n) - 1);
    expect(await queryWarehouse(dataDir, `select count(*) as n from raw.engagement_customer_profiles where id = '${profileId}'`)).toEqual([{ n: '0' }]);
    const rawRows = await queryWarehouse(dataDir, `select count(*) as n from read_parquet('${dataDir}/raw/ticketing/users/**/*.parquet', hive_partitioning = false) where id = ${Number(userId)}`);
    expect(rawRows).toEqual([{ n: '0' }]);

    // Tombstones and the audit line hold no address, and only their owner reads them.
    const audit = await readFile(join(dataDir, 'privacy', 'erasures.log'), 'utf8');
    expect(JSON.parse(audit.trim().split('\n').at(-1)!)).toMatchObject({ kind: 'forget --email', records: expect.any(Number) });
    expect((await stat(join(dataDir, 'privacy', 'tombstones.json'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dataDir, 'privacy', 'hash-key'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dataDir, 'warehouse.duckdb'))).mode & 0o777).toBe(0o600);

    const check = await runCli(['check'], env);
    expect(check.code, `${check.stdout}\n${check.stderr}`).toBe(0);

    // The source still holds them: the next run reads them again, and drops them before the load.
    const again = await runCli(['run', '--full-refresh', '--resource', 'users', 'tickets', 'customer_profiles', 'people'], env);
    expect(again.code, `${again.stdout}\n${again.stderr}`).toBe(0);
    expect(again.stderr).toMatch(/extract: ticketing\/users: dropped 1 record of forgotten people .*the source still holds them/);
    expect(await whereIs(email)).toEqual([]);
    expect(await whereIs(phone)).toEqual([]);
    expect(await queryWarehouse(dataDir, `select count(*) as n from raw.ticketing_users where id = ${Number(userId)}`)).toEqual([{ n: '0' }]);
  });

  it('erases the personal data of a profile removed at the source once privacy.vanishedDays passed, and the figures stay', async () => {
    const dir = await sharedWarehouse({ simulator: SIMULATOR });
    try {
      const here = cliEnv(sim, dir);
      const [chosen] = await queryWarehouse(dir, `select cast(id as varchar) as id, email from raw.engagement_customer_profiles where email is not null and cast(id as varchar) <> '${profileId}' order by id limit 1 offset 3`);
      const id = String(chosen!.id);
      sim.removeCustomerProfiles([id]);
      for (const args of [['extract', '--resource', 'customer_profiles', 'people', 'consents'], ['load'], ['build']]) {
        const result = await runCli(args, here);
        expect(result.code, `${args.join(' ')}\n${result.stderr}`).toBe(0);
      }
      const figures = async () =>
        queryWarehouse(
          dir,
          `select (select count(*) from marts.dim_fan) as fans,
                  (select to_json(list(to_json(ledger) order by system)) from marts.consent_ledger as ledger) as consents,
                  (select any_value(fan_id) from marts.fan_identity_links where system = 'engagement_customer_profile' and record_id = '${id}') as fan_id`,
        );
      const vanished = await figures();
      const profile = () => queryWarehouse(dir, `select email, firstName, phoneNumber, _vanished_at is not null as vanished from raw.engagement_customer_profiles where cast(id as varchar) = '${id}'`);
      const inRawRuns = () => queryWarehouse(dir, `select count(*) as n from read_parquet('${dir}/raw/engagement/customer_profiles/**/*.parquet', union_by_name = true, hive_partitioning = false) where cast(id as varchar) = '${id}'`);
      expect((await profile())[0]).toMatchObject({ email: chosen!.email, vanished: true });
      expect(Number((await inRawRuns())[0]!.n)).toBeGreaterThan(0);

      const DAY = 86_400_000;
      const early = await runCli(['load'], { ...here, ...clockAhead(29 * DAY) });
      expect(early.code, early.stderr).toBe(0);
      expect((await profile())[0]).toMatchObject({ email: chosen!.email });

      const due = await runCli(['load'], { ...here, ...clockAhead(31 * DAY) });
      expect(due.code, due.stderr).toBe(0);
      expect(due.stderr).toMatch(/raw\.engagement_customer_profiles: personal data of 1 record vanished/);
      expect(await profile()).toEqual([{ email: null, firstName: null, phoneNumber: null, vanished: true }]);
      expect(await inRawRuns()).toEqual([{ n: '0' }]);
      // Its people went with it, and lose theirs alike; their rows and keys stay.
      const people = await queryWarehouse(dir, `select count(*) as n, count(emailAddress) + count(firstName) as personal from raw.engagement_people where cast(customerProfileId as varchar) = '${id}'`);
      expect(Number(people[0]!.personal)).toBe(0);
      expect((await runCli(['build', '--full-refresh'], here)).code).toBe(0);
      expect(await figures()).toEqual(vanished);
      expect(JSON.parse((await readFile(join(dir, 'privacy', 'erasures.log'), 'utf8')).trim())).toMatchObject({ kind: 'vanished', records: expect.any(Number) });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
