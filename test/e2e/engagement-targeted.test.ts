import { cpSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/simulator.js';
import { runCli, tempDataDir, type WatchedProcess } from '../helpers/cli.js';
import { LISTEN_SECRET, listenEnv, startListen } from '../helpers/listen.js';
import { startTestSimulator } from '../helpers/simulator.js';
import { runJson } from '../helpers/stage-json.js';
import { queryWarehouse } from '../helpers/warehouse.js';

const SECRET = LISTEN_SECRET;

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function simulator(): Promise<Simulator> {
  const sim = await startTestSimulator({ scale: 0.02, push: { retryMs: 10, maxAttempts: 2 } });
  cleanup.push(() => sim.close());
  return sim;
}

function envFor(sim: Simulator, dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return listenEnv(sim, dataDir, {
    // No slot of the snapshot schedule falls within a test.
    FANLAKE_ENGAGEMENT_SNAPSHOT_CRON: '0 0 1 1 *',
    FANLAKE_HTTP_TIMEOUT_MS: '3000',
    ...extra,
  });
}

/** A loopback proxy to the simulator that answers a plain-text 404, as a gateway would, for paths ending in `path`. */
async function pageNotFoundProxy(sim: Simulator, path: string): Promise<string> {
  const server = createServer(async (req, res) => {
    if (new URL(req.url!, 'http://proxy').pathname.endsWith(path)) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>404 Not Found</body></html>');
    const answer = await fetch(`${sim.url}${req.url}`, { headers: { authorization: String(req.headers.authorization ?? ''), accept: String(req.headers.accept ?? '*/*') } });
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(() => new Promise((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function listen(sim: Simulator, dataDir: string): Promise<WatchedProcess> {
  return (await startListen(envFor(sim, dataDir), cleanup)).proc;
}

async function extractAndLoad(sim: Simulator, dataDir: string, extra: Record<string, string> = {}) {
  const extract = await runJson(['extract', '--source', 'engagement'], envFor(sim, dataDir, extra));
  expect(extract.code, extract.stderr).toBe(0);
  const load = await runCli(['load'], envFor(sim, dataDir, extra));
  expect(load.code, load.stderr).toBe(0);
  return extract;
}

const requests = (run: Awaited<ReturnType<typeof extractAndLoad>>, name: string) => run.result(`engagement.${name}`)?.counts.requests;

/** Every raw engagement table as its rows' values (lineage aside) and whether each is flagged vanished, sorted. */
async function rawContent(dataDir: string): Promise<Record<string, string[]>> {
  const tables = await queryWarehouse(dataDir, "select table_name from duckdb_tables() where schema_name = 'raw' and table_name like 'engagement_%' order by 1");
  const content: Record<string, string[]> = {};
  for (const { table_name: table } of tables) {
    const rows = await queryWarehouse(dataDir, `select to_json(t) as row from (select * exclude (_run_id, _extracted_at, _vanished_at), _vanished_at is not null as vanished from raw.${table}) as t`);
    content[table] = rows.map((row) => String(row.row)).sort();
  }
  return content;
}

describe('engagement runs with a push subscription', { timeout: 300_000 }, () => {
  it('re-reads only the changed profiles with their people and consents, leaves the rest for the schedule, and marks the changes consumed once loaded', async () => {
    const sim = await simulator();
    const dataDir = tempDataDir();
    await listen(sim, dataDir);
    const first = await extractAndLoad(sim, dataDir);
    expect(first.result('engagement.customer_profiles')?.status).toBe('ok');
    expect(requests(first, 'consents')).toBeGreaterThan(100);

    const changed = sim.changeCustomerProfiles({ count: 3 });
    await sim.push.idle();
    const second = await extractAndLoad(sim, dataDir);
    expect(second.result('engagement.customer_profiles')).toMatchObject({ status: 'ok', counts: { rows: 3, requests: 3 } });
    expect(requests(second, 'consents')).toBe(3);
    expect(second.result('engagement.people')?.counts.rows).toBe(changed.map((id) => sim.engagement.profiles.peopleIds(sim.engagement.profiles.indexOfId(id)).length).reduce((a, b) => a + b));
    expect(second.result('engagement.campaign_apps')).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/snapshot schedule/) });
    expect(second.result('engagement.subscriptions')?.status).toBe('ok');
    expect(second.step.notes).toContain('engagement.customer_profiles: re-read 3 changed customer profiles (push subscription)');
    // What changed is in the warehouse, and nothing is flagged vanished by a partial read.
    for (const id of changed) {
      const truth = sim.engagementRecords('customer_profiles');
      const profile = [...truth].find((p) => p.id === id)!;
      expect(await queryWarehouse(dataDir, `select street, "postalCode" from raw.engagement_customer_profiles where id = '${id}'`)).toEqual([{ street: profile.street, postalCode: profile.postalCode }]);
    }
    expect(await queryWarehouse(dataDir, 'select count(*) as n from raw.engagement_customer_profiles where _vanished_at is not null')).toEqual([{ n: '0' }]);

    // Consumed: a run right after reads no profile at all.
    const third = await extractAndLoad(sim, dataDir);
    expect(third.result('engagement.customer_profiles')).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/no customer profile changed/) });
    const total = third.step.counts.requests!;
    expect(total).toBeLessThanOrEqual(2);
    expect(total).toBeLessThanOrEqual(first.step.counts.requests! / 100);
  });

  it('takes a full snapshot when the receiver was down, catching the change whose delivery was lost, and when the subscription reports failingSince', async () => {
    const sim = await simulator();
    const dataDir = tempDataDir();
    const receiver = await listen(sim, dataDir);
    await extractAndLoad(sim, dataDir);

    receiver.child.kill('SIGTERM');
    await receiver.done;
    const [lost] = sim.changeCustomerProfiles({ count: 1 });
    await sim.push.idle();
    expect(sim.push.stats().dropped).toBe(1);
    await listen(sim, dataDir);
    const afterDowntime = await extractAndLoad(sim, dataDir);
    expect(afterDowntime.step.notes).toContainEqual(expect.stringMatching(/^engagement\.customer_profiles: full snapshot: the receiver has covered changes only since/));
    expect(requests(afterDowntime, 'consents')).toBeGreaterThan(100);
    const profile = [...sim.engagementRecords('customer_profiles')].find((p) => p.id === lost)!;
    expect(await queryWarehouse(dataDir, `select street from raw.engagement_customer_profiles where id = '${lost}'`)).toEqual([{ street: profile.street }]);

    // Covered since that snapshot: targeted again, until the platform says pushes fail.
    sim.changeCustomerProfiles({ count: 1 });
    await sim.push.idle();
    expect((await extractAndLoad(sim, dataDir)).result('engagement.customer_profiles')?.counts.requests).toBe(1);
    const ours = sim.engagement.subscriptions.all().find((s) => s.url.includes(SECRET))!;
    ours.failingSince = new Date().toISOString();
    const failing = await extractAndLoad(sim, dataDir);
    expect(failing.step.notes).toContain(`engagement.customer_profiles: full snapshot: the push subscription reports failingSince ${ours.failingSince}`);
  });

  it('ends, after targeted runs and one full snapshot, with the warehouse that full snapshots alone build', async () => {
    const sim = await simulator();
    const targeted = tempDataDir();
    const full = tempDataDir();
    await listen(sim, targeted);
    await extractAndLoad(sim, targeted);
    // The same start for both: the full-only directory without the receiver's files.
    cpSync(targeted, full, { recursive: true });
    rmSync(join(full, 'listen'), { recursive: true, force: true });
    rmSync(join(full, 'state'), { recursive: true, force: true });

    for (let hour = 0; hour < 3; hour++) {
      sim.changeCustomerProfiles({ count: 4 });
      if (hour === 1) sim.removeCustomerProfiles([String([...sim.engagementRecords('customer_profiles')][5]!.id)]);
      await sim.push.idle();
      const run = await extractAndLoad(sim, targeted);
      expect(run.result('engagement.participants')?.status).toBe('skipped');
      expect((await extractAndLoad(sim, full, { FANLAKE_LISTEN_SECRET: '' })).result('engagement.participants')?.status).toBe('ok');
    }
    // A slot every second (croner's six fields, seconds first): one has passed since the first
    // snapshot, however quickly the runs above went (every minute had none within one minute).
    const nightly = await extractAndLoad(sim, targeted, { FANLAKE_ENGAGEMENT_SNAPSHOT_CRON: '* * * * * *' });
    expect(nightly.step.notes).toContainEqual(expect.stringMatching(/^engagement\.customer_profiles: full snapshot: the snapshot schedule/));
    expect(nightly.result('engagement.participants')?.status).toBe('ok');

    const [a, b] = [await rawContent(targeted), await rawContent(full)];
    expect(Object.keys(a)).toEqual(Object.keys(b));
    for (const table of Object.keys(b)) {
      if (table === 'engagement_subscriptions') continue; // the receiver's own subscription differs by its state over time
      expect(a[table], table).toEqual(b[table]);
    }
    expect(JSON.parse(readFileSync(join(targeted, 'listen', 'consumed.json'), 'utf8')).position).toBeDefined();
  });

  it('flags a profile vanished when its re-read answers the API\'s 404, but not when a proxy answers 404', async () => {
    const sim = await simulator();
    const dataDir = tempDataDir();
    await listen(sim, dataDir);
    await extractAndLoad(sim, dataDir);
    const [gone] = sim.removeCustomerProfiles([String([...sim.engagementRecords('customer_profiles')][3]!.id)]);
    await sim.push.idle();
    const flag = async () => (await queryWarehouse(dataDir, `select _vanished_at is not null as vanished from raw.engagement_customer_profiles where id = '${gone}'`))[0]!.vanished;

    // A proxy in front of the API that answers its own 404 page for that profile: a failure, nothing flagged.
    const proxy = await pageNotFoundProxy(sim, `/customerprofiles/${gone}`);
    const proxied = await runJson(['extract', '--source', 'engagement'], envFor(sim, dataDir, { FANLAKE_ENGAGEMENT_URL: proxy, FANLAKE_HTTP_MAX_ATTEMPTS: '1' }));
    expect(proxied.result('engagement.customer_profiles')?.status).toBe('partial');
    expect(proxied.step.errors[0]?.message).toMatch(/answered 404 Not Found without the API's error body/);
    expect((await runCli(['load'], envFor(sim, dataDir))).code).toBe(0);
    expect(await flag()).toBe(false);

    // The API's own 404: gone at the source, flagged by this run's load, as a snapshot would.
    const run = await extractAndLoad(sim, dataDir);
    expect(run.result('engagement.customer_profiles')).toMatchObject({ status: 'ok', counts: { rows: 0 } });
    expect(run.step.notes).toContainEqual(expect.stringMatching(/customer_profiles: 1 record read by key no longer at the source \(404\)/));
    expect(await flag()).toBe(true);
    const [{ at }] = await queryWarehouse(dataDir, `select _vanished_at = (select max(extracted_at) from meta.load_ledger where resource = 'customer_profiles') as at from raw.engagement_customer_profiles where id = '${gone}'`);
    expect(at).toBe(true);
    expect(await queryWarehouse(dataDir, 'select count(*) as n from raw.engagement_customer_profiles where _vanished_at is not null')).toEqual([{ n: '1' }]);
  });

  it('reads everything every run without a subscription, as before', async () => {
    const sim = await simulator();
    const dataDir = tempDataDir();
    const first = await extractAndLoad(sim, dataDir, { FANLAKE_LISTEN_SECRET: '' });
    const second = await extractAndLoad(sim, dataDir, { FANLAKE_LISTEN_SECRET: '' });
    expect(second.step.counts.requests).toBe(first.step.counts.requests);
    expect(second.result('engagement.participants')?.status).toBe('ok');
    expect(second.step.notes.filter((note) => /full snapshot|re-read/.test(note))).toEqual([]);
  });
});
