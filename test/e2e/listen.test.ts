import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/simulator.js';
import { runCli, spawnCli, tempDataDir, watch, type WatchedProcess } from '../helpers/cli.js';
import { journalIds, LISTEN_SECRET, listenEnv, startListen } from '../helpers/listen.js';
import { startTestSimulator } from '../helpers/simulator.js';
import { queryWarehouse } from '../helpers/warehouse.js';

const SECRET = LISTEN_SECRET;

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function simulator(push: { retryMs?: number; maxAttempts?: number } = {}): Promise<Simulator> {
  const sim = await startTestSimulator({ push: { retryMs: 20, maxAttempts: 3, ...push } });
  cleanup.push(() => sim.close());
  return sim;
}

function envFor(sim: Simulator, dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return listenEnv(sim, dataDir, extra);
}

function listen(sim: Simulator, dataDir: string, extra: Record<string, string> = {}, port = '0'): Promise<{ url: string; proc: WatchedProcess }> {
  return startListen(envFor(sim, dataDir, extra), cleanup, port);
}


function ours(sim: Simulator) {
  return sim.engagement.subscriptions.all().filter((s) => s.url.startsWith('http://127.0.0.1'));
}

describe('fanlake listen', () => {
  it('registers and validates its subscription, records each delivered change, and stops cleanly on SIGTERM', async () => {
    const sim = await simulator();
    const dataDir = tempDataDir();
    const { url, proc } = await listen(sim, dataDir);
    const [subscription] = ours(sim);
    expect(subscription).toMatchObject({ url: `${url}/push/${SECRET}`, isEnabled: true, isValidated: true, event: 'CustomerProfile' });
    // The secret is never printed.
    expect(proc.stdout + proc.stderr).not.toContain(SECRET);

    const first = sim.changeCustomerProfiles({ count: 3 });
    const second = sim.changeCustomerProfiles({ count: 2 });
    await sim.push.idle();
    expect(sim.push.stats()).toMatchObject({ delivered: 2, failedAttempts: 0 });
    expect(journalIds(dataDir)).toEqual([...first, ...second]);

    // The callback URL carries the secret: extracted into raw, it is masked like any secret.
    expect((await runCli(['extract', '--resource', 'subscriptions'], envFor(sim, dataDir))).code).toBe(0);
    expect((await runCli(['load'], envFor(sim, dataDir))).code).toBe(0);
    const stored = await queryWarehouse(dataDir, `select url from raw.engagement_subscriptions where id = '${subscription!.id}'`);
    expect(stored).toEqual([{ url: `${url}/push/***` }]);

    const status = await runCli(['status'], envFor(sim, dataDir));
    expect(status.stdout).toContain(`push receiver (subscription ${subscription!.id}): up since`);

    proc.child.kill('SIGTERM');
    const done = await proc.done;
    expect(done.code).toBe(0);
    expect((await runCli(['status'], envFor(sim, dataDir))).stdout).toMatch(/push receiver \(subscription \d+\): the receiver stopped at .*: the next run takes a full engagement snapshot/);
    const state = JSON.parse(readFileSync(join(dataDir, 'listen', 'receiver.json'), 'utf8'));
    expect(state).toMatchObject({ subscriptionId: subscription!.id, stoppedAt: expect.any(String), coveredSince: expect.any(String) });
    expect(JSON.stringify(state)).not.toContain(SECRET);
  });

  it('refuses a delivery without the secret, another method and a body over the limit', async () => {
    const sim = await simulator();
    const dataDir = tempDataDir();
    const { url } = await listen(sim, dataDir, { FANLAKE_LISTEN_MAX_BODY_BYTES: '2000' });
    const delivery = JSON.stringify({ event: 'CustomerProfile', customerProfiles: [{ id: '1000001' }] });
    const post = (path: string, body = delivery) => fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect((await post('/push/not-the-secret-0123456789abcdefABCDEF')).status).toBe(404);
    expect((await post('/')).status).toBe(404);
    expect((await fetch(`${url}/push/${SECRET}`)).status).toBe(405);
    expect((await post(`/push/${SECRET}`, JSON.stringify({ customerProfileIds: Array.from({ length: 400 }, (_, k) => String(1_000_000 + k)) }))).status).toBe(413);
    expect(journalIds(dataDir)).toEqual([]);
    // The rate limits, on a clock the test moves: test/listen/receiver-server.test.ts.
  });

  it('journals and answers 200 every delivery of the platform during a flood of wrong-path requests', async () => {
    const sim = await simulator();
    const dataDir = tempDataDir();
    const { url } = await listen(sim, dataDir);
    const flood = new Agent({ keepAlive: true, maxSockets: 64 });
    cleanup.push(async () => flood.destroy());
    const stranger = (k: number) =>
      new Promise<void>((resolve) => {
        const req = httpRequest(`${url}${k % 2 ? '/' : '/push/not-the-secret-0123456789abcdefABCDEF'}`, { method: 'POST', agent: flood }, (res) => res.resume().on('end', resolve).on('error', resolve));
        req.on('error', () => resolve());
        req.end('{}');
      });
    const strangers = Array.from({ length: 1_000 }, (_, k) => stranger(k));
    const changed = Array.from({ length: 20 }, () => sim.changeCustomerProfiles({ count: 1 })).flat();
    await sim.push.idle();
    await Promise.all(strangers);
    // Each delivery answered 200 at its first attempt: none was refused for the strangers' sake.
    expect(sim.push.stats()).toMatchObject({ delivered: 20, failedAttempts: 0, dropped: 0 });
    expect(journalIds(dataDir)).toEqual(changed);
  });

  it('keeps its validated subscription across a restart without a new handshake', async () => {
    const sim = await simulator();
    const dataDir = tempDataDir();
    const first = await listen(sim, dataDir);
    const [subscription] = ours(sim);
    first.proc.child.kill('SIGTERM');
    await first.proc.done;
    const validationsBefore = sim.push.stats().validationsSent;
    await listen(sim, dataDir, {}, new URL(first.url).port);
    // Same URL, still validated: nothing to do but listen.
    expect(ours(sim).map((s) => s.id)).toEqual([subscription!.id]);
    expect(sim.push.stats().validationsSent).toBe(validationsBefore);
  });

  it('moves its subscription to a new secret without creating another', async () => {
    const sim = await simulator();
    const dataDir = tempDataDir();
    const first = await listen(sim, dataDir);
    const [subscription] = ours(sim);
    first.proc.child.kill('SIGTERM');
    await first.proc.done;
    const secret = 'another-secret-0123456789abcdefABCDEF-xyz';
    const second = await listen(sim, dataDir, { FANLAKE_LISTEN_SECRET: secret });
    expect(ours(sim)).toEqual([expect.objectContaining({ id: subscription!.id, url: `${second.url}/push/${secret}`, isValidated: true, isEnabled: true })]);
    const ids = sim.changeCustomerProfiles({ count: 1 });
    await sim.push.idle();
    expect(journalIds(dataDir)).toEqual(ids);
  });

  it('loses no acknowledged change when killed (SIGKILL) in the middle of deliveries', async () => {
    const sim = await simulator({ retryMs: 10, maxAttempts: 2 });
    const dataDir = tempDataDir();
    const { proc } = await listen(sim, dataDir);
    // 300 deliveries of one profile each, sent one after the other.
    for (let k = 0; k < 300; k++) sim.changeCustomerProfiles({ count: 1 });
    // The receiver says so once each change is on disk.
    await proc.waitFor(/recorded 1 changed customer profile$/m, 'stderr', 40);
    proc.child.kill('SIGKILL');
    await proc.done;
    await sim.push.idle();
    const acknowledged = sim.push.acknowledgedChanges().map((change) => change.id);
    // The last lines written may not have been answered before the kill: recorded, never acknowledged.
    expect(acknowledged.length).toBeGreaterThanOrEqual(30);
    expect(acknowledged.length).toBeLessThan(300);
    const recorded = new Set(journalIds(dataDir));
    expect(acknowledged.filter((id) => !recorded.has(id))).toEqual([]);
    // The receiver comes back, reads its journal as it was, and records what follows.
    await listen(sim, dataDir);
    const later = sim.changeCustomerProfiles({ count: 1 });
    await sim.push.idle();
    expect(journalIds(dataDir)).toEqual(expect.arrayContaining([...acknowledged, ...later]));
  });

  it('after partial bytes with a complete entry glued on in the journal, the next run exits 0, takes a full snapshot and says why; status works', { timeout: 180_000 }, async () => {
    const sim = await simulator();
    const dataDir = tempDataDir();
    // No slot of the snapshot schedule falls within the test.
    const env = envFor(sim, dataDir, { FANLAKE_ENGAGEMENT_SNAPSHOT_CRON: '0 0 1 1 *', FANLAKE_TICKETING_URL: sim.url, FANLAKE_TICKETING_TOKEN: sim.options.ticketingToken });
    await startListen(env, cleanup);
    const extract = await runCli(['extract'], env);
    expect(extract.code, extract.stderr).toBe(0);
    expect((await runCli(['load'], env)).code).toBe(0);

    // A failed append left partial bytes at the end of the live segment; the next delivery is glued onto them.
    const dir = join(dataDir, 'listen', 'journal');
    const live = readdirSync(dir).sort().at(-1)!;
    appendFileSync(join(dir, live), '{"at":"2026-03-01T12:00:00.000Z","ids":["100');
    const [glued] = sim.changeCustomerProfiles({ count: 1 });
    await sim.push.idle();
    const status = await runCli(['status'], env);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/journal {12}[\d.]+ [KMG]?B in 1 segment; 1 unreadable line skipped: the next run takes a full snapshot/);

    const run = await runCli(['run', '--report', 'audience-consent', '--format', 'json'], env);
    expect(run.code, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout) as { steps: { step: string; notes: string[] }[] };
    expect(summary.steps[0]!.notes).toContain('engagement.customer_profiles: full snapshot: 1 unreadable line in the change journal (skipped)');
    // The change whose line could not be read is in the warehouse all the same.
    const profile = [...sim.engagementRecords('customer_profiles')].find((p) => p.id === glued)!;
    expect(await queryWarehouse(dataDir, `select street from raw.engagement_customer_profiles where id = '${glued}'`)).toEqual([{ street: profile.street }]);
    const after = await runCli(['status'], env);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toMatch(/journal {12}[\d.]+ [KMG]?B in 1 segment; no unreadable lines/);
  });

  it('waits out a 429 storm at start-up, honouring Retry-After and saying so, then registers; stops cleanly on SIGTERM while waiting', async () => {
    const sim = await startTestSimulator({ retryAfterSeconds: 0, push: { retryMs: 20, maxAttempts: 3 } });
    cleanup.push(() => sim.close());
    // Two rounds of three attempts give up, the third round gets through on its second attempt.
    sim.faults.force(/\/pushservice\/subscriptions/, 'status-429', 7);
    const { proc } = await listen(sim, tempDataDir(), { FANLAKE_HTTP_MAX_ATTEMPTS: '3' });
    const waits = proc.stderr.match(/subscription not registered yet: GET \/\S*\/pushservice\/subscriptions gave up after 3 attempts; last failure: 429 .*; trying again in 0\.0 s \(Retry-After\), until stopped/g);
    expect(waits).toHaveLength(2);
    expect(ours(sim)).toMatchObject([{ isEnabled: true, isValidated: true }]);
    proc.child.kill('SIGTERM');
    expect((await proc.done).code).toBe(0);

    // A storm that does not end: it waits until stopped, and stops cleanly.
    sim.faults.force(/\/pushservice\/subscriptions/, 'status-429');
    const stormy = watch(spawnCli(['listen', '--port', '0'], envFor(sim, tempDataDir(), { FANLAKE_HTTP_MAX_ATTEMPTS: '2' })));
    cleanup.push(async () => void (stormy.child.exitCode === null && stormy.child.kill('SIGKILL')));
    await stormy.waitFor(/trying again in/, 'stderr');
    stormy.child.kill('SIGTERM');
    const stopped = await stormy.done;
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).not.toMatch(/listening on/);
    expect(stopped.stderr).toMatch(/receiver stopped/);
  });

  it('exits 2 without a secret, and says so without starting', async () => {
    const sim = await simulator();
    const { FANLAKE_LISTEN_SECRET: _, ...env } = envFor(sim, tempDataDir());
    const result = await runCli(['listen', '--port', '0'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/FANLAKE_LISTEN_SECRET is not set/);
    const short = await runCli(['listen', '--port', '0'], { ...env, FANLAKE_LISTEN_SECRET: 'short' });
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/listen\.secret: must be at least 32/);
    expect(short.stderr).not.toContain('short (');
    // The callback URL carries the secret: plain http only to loopback.
    const clear = await runCli(['listen', '--port', '0'], { ...env, FANLAKE_LISTEN_PUBLIC_URL: 'http://hooks.club.example' });
    expect(clear.code).toBe(2);
    expect(clear.stderr).toMatch(/listen\.publicUrl: must be an https URL/);
    const open = await runCli(['listen', '--port', '0'], { ...env, FANLAKE_LISTEN_SECRET: SECRET, FANLAKE_LISTEN_HOST: '0.0.0.0' });
    expect(open.code).toBe(2);
    expect(open.stderr).toMatch(/listen\.publicUrl is not set, and the receiver would be called over plain http on 0\.0\.0\.0/);
  });
});
