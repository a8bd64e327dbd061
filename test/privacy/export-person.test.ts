import { readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PersonExport } from '../../src/privacy/export-person.js';
import type { Simulator } from '../../src/simulator/simulator.js';
import { runCli } from '../helpers/cli.js';
import { sharedWarehouse } from '../helpers/shared-warehouse.js';
import { startTestSimulator } from '../helpers/simulator.js';
import { recordsByPerson } from '../helpers/truth.js';
import { queryWarehouse } from '../helpers/warehouse.js';
import { cliEnv } from '../warehouse/identity-fixture.js';

/** The default test simulator's options, for the shared warehouse. */
const SIMULATOR = { scale: 0.02, seed: 42 };

let sim: Simulator;
let dataDir: string;
let env: Record<string, string>;
/** The person the tests ask about: every record the simulator made of them, as record keys. */
let truthKeys: string[];
let userId: string;
let profileId: string;
let email: string;

beforeAll(async () => {
  dataDir = await sharedWarehouse({ simulator: SIMULATOR });
  sim = await startTestSimulator(SIMULATOR);
  env = cliEnv(sim, dataDir);
  const byPerson = await recordsByPerson(sim);
  const links = await queryWarehouse(dataDir, "select system || ':' || record_id as record_key, fan_id from marts.fan_identity_links");
  const fanOf = new Map(links.map((row) => [String(row.record_key), String(row.fan_id)]));
  const buyers = new Set((await queryWarehouse(dataDir, 'select distinct cast(user_aquired_id as varchar) as id from raw.ticketing_tickets')).map((row) => String(row.id)));
  // A person with a ticketing account that bought tickets and an engagement profile, whose records
  // identity resolution put in one fan: the document must then hold every one of them.
  const person = [...byPerson.values()].find((records) => {
    const systems = new Set(records.map((link) => link.system));
    const user = records.find((link) => link.system === 'ticketing_user');
    const fans = new Set(records.map((link) => fanOf.get(`${link.system}:${link.recordId}`)));
    return systems.has('engagement_customer_profile') && systems.has('engagement_person') && user !== undefined && buyers.has(user.recordId) && fans.size === 1;
  });
  if (!person) throw new Error('the simulator has no person with a ticket buyer and a profile resolved to one fan');
  truthKeys = person.map((link) => `${link.system}:${link.recordId}`).sort();
  userId = person.find((link) => link.system === 'ticketing_user')!.recordId;
  profileId = person.find((link) => link.system === 'engagement_customer_profile')!.recordId;
  const [user] = await queryWarehouse(dataDir, `select email from raw.ticketing_users where id = ${Number(userId)}`);
  email = String(user!.email);
}, 600_000);

afterAll(async () => {
  await sim?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** The source records of one raw table in the document, by their primary key's `id`. */
const idsIn = (document: PersonExport, table: string) =>
  document.sourceRecords.filter((record) => record.cameFrom.table === table).map((record) => String(record.cameFrom.key.id)).sort();

describe('fanlake export-person', () => {
  it('returns every record of the fan, with their consents and where each came from, in a file only its owner reads', async () => {
    const file = join(dataDir, 'export.json');
    const result = await runCli(['export-person', '--email', `  ${email.toUpperCase()} `, '--out', file], env);
    expect(result.code, result.stderr).toBe(0);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const document = JSON.parse(await readFile(file, 'utf8')) as PersonExport;

    expect(document.fanIds).toHaveLength(1);
    expect(document.linkedRecords.map((record) => record.recordKey).sort()).toEqual(expect.arrayContaining(truthKeys));
    for (const key of truthKeys) {
      const [system, id] = key.split(':') as [string, string];
      const table = { ticketing_user: 'raw.ticketing_users', ticketing_member: 'raw.ticketing_members', engagement_customer_profile: 'raw.engagement_customer_profiles', engagement_person: 'raw.engagement_people' }[system]!;
      expect(idsIn(document, table), key).toContain(id);
    }

    // Every ticket bought or held and every merchandise order of the account, counted apart.
    const tickets = await queryWarehouse(dataDir, `select id from raw.ticketing_tickets where user_aquired_id = ${Number(userId)} or user_held_id = ${Number(userId)} order by id`);
    expect(tickets.length).toBeGreaterThan(0);
    expect(idsIn(document, 'raw.ticketing_tickets')).toEqual(tickets.map((row) => String(row.id)).sort());
    const orders = await queryWarehouse(dataDir, `select id from raw.ticketing_merchandise where user_id = ${Number(userId)}`);
    expect(idsIn(document, 'raw.ticketing_merchandise')).toEqual(orders.map((row) => String(row.id)).sort());

    // Consents of both systems, each with its run and load.
    const permissions = await queryWarehouse(dataDir, `select count(*) as n from raw.ticketing_user_permissions where id_user = '${userId}'`);
    const consents = await queryWarehouse(dataDir, `select count(*) as n from raw.engagement_consents where customerProfileId = '${profileId}'`);
    const consentTables = document.consents.records.map((record) => record.cameFrom.table);
    expect(consentTables.filter((table) => table === 'raw.ticketing_user_permissions')).toHaveLength(Number(permissions[0]!.n));
    expect(consentTables.filter((table) => table === 'raw.engagement_consents')).toHaveLength(Number(consents[0]!.n));
    expect(Number(permissions[0]!.n) + Number(consents[0]!.n)).toBeGreaterThan(0);
    for (const record of document.sourceRecords) {
      expect(record.cameFrom.runId, record.cameFrom.table).toMatch(/^\d{8}T\d{6}Z-[0-9a-f]{6}$/);
      expect(record.cameFrom.loadedAt, record.cameFrom.table).not.toBeNull();
      expect(record.whose.length, record.cameFrom.table).toBeGreaterThan(0);
    }

    const relations = document.modelRows.map((model) => model.relation);
    expect(relations).toEqual(expect.arrayContaining(['marts.dim_fan', 'marts.fan_identity_links']));
    expect(document.modelRows.find((model) => model.relation === 'marts.dim_fan')!.rows).toEqual([expect.objectContaining({ fan_id: document.fanIds[0] })]);
  });

  it('finds the same fan by a record key, by phone and by fan id, and prints the document without --out', async () => {
    const byRecord = await runCli(['export-person', '--record', `engagement_customer_profile:${profileId}`], env);
    expect(byRecord.code, byRecord.stderr).toBe(0);
    const document = JSON.parse(byRecord.stdout) as PersonExport;
    const byFan = JSON.parse((await runCli(['export-person', '--fan-id', document.fanIds[0]!], env)).stdout) as PersonExport;
    expect(byFan.linkedRecords).toEqual(document.linkedRecords);
    // A phone number as people write it: spaces between the groups.
    const [withPhone] = await queryWarehouse(dataDir, 'select fan_id, phone_e164 from marts.dim_fan where phone_e164 is not null order by fan_id limit 1');
    const written = String(withPhone!.phone_e164).replace(/^(\+\d{2})(\d{3})(\d{2})/, '$1 $2 $3 ');
    const byPhone = await runCli(['export-person', '--phone', written], env);
    expect(byPhone.code, byPhone.stderr).toBe(0);
    expect((JSON.parse(byPhone.stdout) as PersonExport).fanIds).toContain(String(withPhone!.fan_id));
  });

  it('exits 1 when nobody matches, 2 without exactly one identifier', async () => {
    const nobody = await runCli(['export-person', '--email', 'nobody@nowhere.invalid'], env);
    expect(nobody.code).toBe(1);
    expect(nobody.stdout).toBe('');
    expect(nobody.stderr).toMatch(/no fan matches --email/);
    expect((await runCli(['export-person'], env)).code).toBe(2);
    expect((await runCli(['export-person', '--email', email, '--fan-id', 'x'], env)).code).toBe(2);
    expect((await runCli(['export-person', '--record', 'ticketing_user'], env)).stderr).toMatch(/is no record key/);
  });
});
