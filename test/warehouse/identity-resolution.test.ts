import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runChecks } from '../../src/models/index.js';
import { scoreIdentityLinks, type IdentityScore, type TruthRecord } from '../../bench/identity-score.mjs';
import { WORK_DOMAINS } from '../../src/simulator/population/names.js';
import { NOISE_RATES } from '../../src/simulator/population/noise.js';
import type { Simulator, TruthLink } from '../../src/simulator/simulator.js';
import { tempDataDir } from '../helpers/cli.js';
import { startTestSimulator } from '../helpers/simulator.js';
import { queryWarehouse } from '../helpers/warehouse.js';
import { IDENTITY_SELECT, cliEnv, runCliOk } from './identity-fixture.js';

/**
 * Identity resolution end to end: the real CLI extracts both simulated APIs, loads and builds
 * the identity models, and the links are scored against the simulator's ground truth.
 */
let sim: Simulator;
let dataDir: string;
let env: Record<string, string>;
let truth: TruthRecord[];
let links: { fanId: string; system: string; recordId: string }[];
let score: IdentityScore;

beforeAll(async () => {
  sim = await startTestSimulator({ scale: 0.1, seed: 11 });
  dataDir = tempDataDir();
  env = cliEnv(sim, dataDir);
  await runCliOk(['extract'], env);
  await runCliOk(['load'], env);
  await runCliOk(['build', ...IDENTITY_SELECT], env);
  truth = [...sim.truth()];
  links = await readLinks();
  score = scoreIdentityLinks(links, truth);
}, 180_000);

afterAll(async () => {
  await sim?.close();
});

async function readLinks() {
  const rows = await queryWarehouse(dataDir, 'select fan_id, system, record_id from marts.fan_identity_links order by system, record_id');
  return rows.map((row) => ({ fanId: row.fan_id as string, system: row.system as string, recordId: row.record_id as string }));
}

const key = (record: { system: string; recordId: string }) => `${record.system}:${record.recordId}`;

describe('identity resolution against the simulator truth (scale 0.1, seed 11)', () => {
  it('links every source record exactly once, and dim_fan has one row per fan', async () => {
    const linked = links.map(key);
    expect(new Set(linked).size).toBe(linked.length);
    expect(new Set(linked)).toEqual(new Set(truth.map(key)));

    const [raw] = await queryWarehouse(
      dataDir,
      `select
           (select count(*) from raw.ticketing_users) + (select count(*) from raw.ticketing_members)
           + (select count(*) from raw.engagement_customer_profiles) + (select count(*) from raw.engagement_people) as records,
           (select count(*) from marts.dim_fan) as fans,
           (select count(distinct fan_id) from marts.fan_identity_links) as linked_fans,
           (select count(*) from marts.dim_fan where fan_id not in (select fan_id from marts.fan_identity_links)) as orphan_fans`,
    );
    expect(Number(raw!.records)).toBe(links.length);
    expect(raw!.fans).toBe(raw!.linked_fans);
    expect(raw!.orphan_fans).toBe('0');
  });

  it('ends label propagation with both ends of every link in one cluster', async () => {
    const [crossing] = await queryWarehouse(
      dataDir,
      `select count(*) as links
       from intermediate.int_identity_edges as edges
       inner join intermediate.int_identity_clusters as from_records on from_records.record_key = edges.from_key
       inner join intermediate.int_identity_clusters as to_records on to_records.record_key = edges.to_key
       where from_records.fan_id <> to_records.fan_id`,
    );
    expect(crossing!.links).toBe('0');
  });

  it('puts records of one person together and keeps different persons apart', () => {
    console.log(`identity resolution: ${JSON.stringify(score)}`);
    expect(score.missingRecords).toBe(0);
    expect(score.duplicateLinks).toBe(0);
    expect(score.precision).toBeGreaterThanOrEqual(0.99);
    // just below the measured recall (0.9926, docs/benchmarks.md), so a loss shows
    expect(score.recall).toBeGreaterThanOrEqual(0.99);
  });

  it('was scored on data that holds the traps', async () => {
    const personOf = new Map(truth.map((record) => [key(record), String(record.personId)]));
    const fanOf = new Map(links.map((link) => [key(link), link.fanId]));
    const contacts = await queryWarehouse(
      dataDir,
      `select 'ticketing_user' as system, cast(id as varchar) as record_id, email, phone from raw.ticketing_users
       union all
       select 'engagement_customer_profile', id, email, phoneNumber from raw.engagement_customer_profiles
       union all
       select 'engagement_person', id, emailAddress, null from raw.engagement_people`,
    );

    // e-mails typed in other case or with spaces
    expect(contacts.filter((row) => row.email && row.email !== row.email.trim().toLowerCase()).length).toBeGreaterThan(0);

    // household mailboxes: one address, several persons; they must stay apart
    const personsByEmail = new Map<string, Set<string>>();
    for (const row of contacts) {
      if (!row.email?.trim()) continue;
      const email = row.email.trim().toLowerCase();
      personsByEmail.set(email, (personsByEmail.get(email) ?? new Set()).add(personOf.get(`${row.system}:${row.record_id}`)!));
    }
    const shared = [...personsByEmail.entries()].filter(([, persons]) => persons.size > 1);
    expect(shared.length).toBeGreaterThan(10);
    let sharedPairs = 0;
    let mergedPairs = 0;
    for (const [email] of shared) {
      const records = contacts.filter((row) => row.email?.trim().toLowerCase() === email).map((row) => `${row.system}:${row.record_id}`);
      for (const [i, a] of records.entries()) {
        for (const b of records.slice(i + 1)) {
          if (personOf.get(a) === personOf.get(b)) continue;
          sharedPairs++;
          if (fanOf.get(a) === fanOf.get(b)) mergedPairs++;
        }
      }
    }
    expect(mergedPairs / sharedPairs).toBeLessThan(0.05);

    // profiles signed up with a work address, which only phone, name or birth date can tie
    const workProfiles = contacts.filter(
      (row) => row.system === 'engagement_customer_profile' && WORK_DOMAINS.some((domain) => row.email?.trim().toLowerCase().endsWith(`@${domain}`)),
    );
    expect(workProfiles.length).toBeGreaterThan(100);

    // second ticketing accounts of one person
    const usersPerPerson = new Map<string, number>();
    for (const record of truth) if (record.system === 'ticketing_user') usersPerPerson.set(String(record.personId), (usersPerPerson.get(String(record.personId)) ?? 0) + 1);
    expect([...usersPerPerson.values()].filter((count) => count > 1).length).toBeGreaterThan(20);

    // phones in several forms, and members named "LASTNAME, First"
    const phones = contacts.map((row) => row.phone as string | null).filter((phone): phone is string => !!phone);
    for (const form of [/^\+\d+$/, /^\d{8}$/, /^00\d+$/, /^tel:/, / /]) expect(phones.some((phone) => form.test(phone)), String(form)).toBe(true);
    const [members] = await queryWarehouse(dataDir, `select count(*) filter (where name like '%,%') as reversed from raw.ticketing_members`);
    expect(Number(members!.reversed)).toBeGreaterThan(0);
  });

  it('links every ApiApp identity to the ticketing user its externalId names', async () => {
    const rows = await queryWarehouse(
      dataDir,
      `select people.id as person_id, people.externalId as user_id
       from raw.engagement_people as people
       where people.systemId = '1' and people.network = 'apiApp'`,
    );
    expect(rows.length).toBeGreaterThan(50);
    const fanOf = new Map(links.map((link) => [key(link), link.fanId]));
    const apart = rows.filter((row) => fanOf.get(`engagement_person:${row.person_id}`) !== fanOf.get(`ticketing_user:${row.user_id}`));
    expect(apart).toEqual([]);
  });

  it('credits every sold ticket and completed merchandise line of a known account to one fan', async () => {
    const [totals] = await queryWarehouse(
      dataDir,
      `select
           (select sum(ticket_spend) from marts.dim_fan) as fan_ticket_spend,
           (select sum(ticket_price) from marts.fct_tickets
            where is_sold and buyer_user_id in (select id from raw.ticketing_users)) as ticket_spend,
           (select sum(merchandise_spend) from marts.dim_fan) as fan_merchandise_spend,
           (select sum(line_revenue) from marts.fct_merchandise_lines
            where is_completed and user_id in (select id from raw.ticketing_users)) as merchandise_spend`,
    );
    expect(Number(totals!.ticket_spend)).toBeGreaterThan(0);
    expect(totals!.fan_ticket_spend).toBe(totals!.ticket_spend);
    expect(totals!.fan_merchandise_spend).toBe(totals!.merchandise_spend);
  });

  it('passes the data tests of its models and sources', async () => {
    const results = await runChecks({ dataDir });
    const mine = results.filter((result) =>
      /^(raw\.engagement_|staging\.stg_engagement__|intermediate\.int_(identity|fan)_|marts\.(dim_fan|fan_identity_links))/.test(result.target ?? ''),
    );
    expect(mine.length).toBeGreaterThan(40);
    // freshness is measured against the wall clock, the simulator's data against its own;
    // loyalty is an opt-in source this run leaves off, so its tests are skipped
    const failing = mine.filter((result) => result.kind !== 'freshness' && result.severity === 'error' && (result.status === 'fail' || result.status === 'error'));
    expect(failing.map((result) => `${result.name}: ${result.status}`)).toEqual([]);
  });

  it('gives every record the same fan id when built again', async () => {
    await runCliOk(['build', ...IDENTITY_SELECT], env);
    expect(await readLinks()).toEqual(links);
  }, 120_000);
});

describe('identity resolution through the simulator\'s real-world noise (scale 0.1, seed 11, --noise)', () => {
  let noisySim: Simulator;
  let noisyTruth: TruthLink[];
  let noisyScore: IdentityScore;

  beforeAll(async () => {
    noisySim = await startTestSimulator({ scale: 0.1, seed: 11, noise: true });
    const noisyDir = tempDataDir();
    const noisyEnv = cliEnv(noisySim, noisyDir);
    await runCliOk(['extract'], noisyEnv);
    await runCliOk(['load'], noisyEnv);
    await runCliOk(['build', '--select', '+fan_identity_links'], noisyEnv);
    noisyTruth = [...noisySim.truth()];
    const rows = await queryWarehouse(noisyDir, 'select fan_id, system, record_id from marts.fan_identity_links');
    noisyScore = scoreIdentityLinks(
      rows.map((row) => ({ fanId: row.fan_id as string, system: row.system as string, recordId: row.record_id as string })),
      noisyTruth,
    );
  }, 180_000);

  afterAll(async () => {
    await noisySim?.close();
  });

  it('was scored on data carrying every kind of noise', () => {
    const kinds = new Set(noisyTruth.flatMap((record) => record.noise ?? []));
    expect([...kinds].sort()).toEqual(Object.keys(NOISE_RATES).sort());
  });

  it('keeps persons apart and, through the noise, mostly together', () => {
    console.log(`identity resolution with noise: ${JSON.stringify(noisyScore)}`);
    expect(noisyScore.missingRecords).toBe(0);
    expect(noisyScore.duplicateLinks).toBe(0);
    expect(noisyScore.precision).toBeGreaterThanOrEqual(0.99);
    // just below the measured recall (0.9841, with short forms and twins in the noise); 0.963
    // before transliterated keys, swapped-name detection and the similar-name rule
    expect(noisyScore.recall).toBeGreaterThanOrEqual(0.98);
  });
});
