import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CRASH_AT_ENV } from '../../src/core/crash-point.js';
import type { Simulator } from '../../src/simulator/simulator.js';
import { TICKETING_RESOURCES, type TicketingResource } from '../../src/simulator/population/ticketing/index.js';
import { expectOneError, runJson } from '../helpers/stage-json.js';
import { clockAhead, runCli, spawnCli, tempDataDir, watch } from '../helpers/cli.js';
import { startTestSimulator } from '../helpers/simulator.js';
import { queryWarehouse } from '../helpers/warehouse.js';

const KEY_SQL: Record<TicketingResource, string> = {
  users: 'id::varchar',
  members: 'id::varchar',
  tickets: 'id',
  merchandise: 'id::varchar',
  user_permissions: "id_user || '|' || id_consent_basic",
};

let sims: Simulator[] = [];
afterEach(async () => {
  await Promise.all(sims.map((sim) => sim.close()));
  sims = [];
});

async function simulator(options: Parameters<typeof startTestSimulator>[0] = {}): Promise<Simulator> {
  // Unpinned clock unless asked: changes made while a run pages must land after its date_end.
  const sim = await startTestSimulator({ scale: 0.05, now: undefined, ...options });
  sims.push(sim);
  return sim;
}

function envFor(sim: Simulator, dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    FANLAKE_TICKETING_URL: sim.url,
    FANLAKE_TICKETING_TOKEN: sim.options.ticketingToken,
    FANLAKE_DATA_DIR: dataDir,
    // Generous for a loaded CI machine; simulated stalls last longer still.
    FANLAKE_HTTP_TIMEOUT_MS: '3000',
    FANLAKE_HTTP_MAX_ATTEMPTS: '8',
    ...extra,
  };
}

/** The simulator's live records: key → last_update. */
function truth(sim: Simulator, resource: TicketingResource): Map<string, string> {
  const data = sim.ticketing.byName[resource];
  const out = new Map<string, string>();
  for (const item of sim.ticketingRecords(resource)) out.set(data.keyOf(item), item.last_update as string);
  return out;
}

async function warehouseKeys(dataDir: string, resource: TicketingResource): Promise<Map<string, string>> {
  const rows = await queryWarehouse(dataDir, `select ${KEY_SQL[resource]} as k, last_update from raw.ticketing_${resource}`);
  const keys = new Map(rows.map((row) => [row.k as string, row.last_update as string]));
  expect(keys.size, `raw.ticketing_${resource} has one row per key`).toBe(rows.length);
  return keys;
}

async function expectWarehouseEqualsTruth(sim: Simulator, dataDir: string): Promise<void> {
  for (const resource of TICKETING_RESOURCES) {
    const expected = truth(sim, resource);
    const actual = await warehouseKeys(dataDir, resource);
    const missing = [...expected.keys()].filter((key) => !actual.has(key));
    expect(missing.slice(0, 5), `${resource}: missing ${missing.length} of ${expected.size}`).toEqual([]);
    expect(actual.size, resource).toBe(expected.size);
    const stale = [...expected].filter(([key, lastUpdate]) => actual.get(key) !== lastUpdate);
    expect(stale.slice(0, 5), `${resource}: latest version wins`).toEqual([]);
  }
}

describe('fanlake extract --source ticketing, then load', () => {
  it('lands every record once, values exactly as sent, despite faults', async () => {
    const sim = await simulator({ faults: 0.1, stallMs: 4500 });
    const dataDir = tempDataDir();
    const extract = await runJson(['extract', '--source', 'ticketing'], envFor(sim, dataDir));
    expect(extract.code, extract.stderr).toBe(0);
    expect(extract.result('ticketing.tickets')?.status).toBe('ok');
    // Faults that retries overcame are no errors.
    expect(extract.step.errors).toEqual([]);
    const load = await runCli(['load'], envFor(sim, dataDir));
    expect(load.code, load.stderr).toBe(0);
    await expectWarehouseEqualsTruth(sim, dataDir);

    const users = await queryWarehouse(dataDir, 'select * exclude (_run_id, _extracted_at) from raw.ticketing_users order by id');
    const expected = [...sim.ticketingRecords('users')].sort((a, b) => (a.id as number) - (b.id as number));
    const normalize = (row: Record<string, unknown>) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v === null ? null : String(v)]));
    expect(users.map(normalize)).toEqual(expected.map(normalize));
    const lineage = await queryWarehouse(dataDir, 'select count(distinct _run_id) as runs, count(*) filter (where _extracted_at is null) as missing from raw.ticketing_tickets');
    expect(lineage[0]).toEqual({ runs: '1', missing: '0' });
  });

  it('misses no unchanged record while pages shift under --mutate; the next run completes the rest', async () => {
    const sim = await simulator({ mutate: 0.05 });
    const dataDir = tempDataDir();
    const before = Date.now();
    const unchangedAtStart = new Map(TICKETING_RESOURCES.map((r) => [r, truth(sim, r)]));
    const first = await runCli(['extract'], envFor(sim, dataDir));
    expect(first.code, first.stderr).toBe(0);
    expect((await runCli(['load'], envFor(sim, dataDir))).code).toBe(0);
    for (const resource of TICKETING_RESOURCES) {
      const now = truth(sim, resource);
      const actual = await warehouseKeys(dataDir, resource);
      // Records whose last_update did not move during the run must all be in this run's output.
      const unchanged = [...unchangedAtStart.get(resource)!].filter(([key, lu]) => now.get(key) === lu && Date.parse(lu) < before);
      const missing = unchanged.filter(([key]) => !actual.has(key));
      expect(missing.slice(0, 3), `${resource}: ${missing.length} unchanged records missing`).toEqual([]);
    }
    sim.mutateRate = 0;
    // Dates are whole seconds: the next run must start in a later second than the last change
    // (its clock ahead, instead of waiting for that second).
    const second = await runCli(['extract'], envFor(sim, dataDir, clockAhead(1100)));
    expect(second.code, second.stderr).toBe(0);
    expect((await runCli(['load'], envFor(sim, dataDir))).code).toBe(0);
    await expectWarehouseEqualsTruth(sim, dataDir);
  });

  it('picks up added and changed records incrementally, and loading twice changes nothing', async () => {
    const sim = await simulator();
    const dataDir = tempDataDir();
    expect((await runCli(['extract'], envFor(sim, dataDir))).code).toBe(0);
    expect((await runCli(['load'], envFor(sim, dataDir))).code).toBe(0);
    const added = sim.addTicketing('tickets', 25);
    const touched = sim.touchTicketing('users', { count: 10 });
    // A run reads up to the last whole second before it started: its clock ahead, it starts in
    // a later second than these changes and than the first run.
    const second = await runJson(['extract'], envFor(sim, dataDir, clockAhead(1100)));
    expect(second.code, second.stderr).toBe(0);
    const rows = Object.fromEntries(second.step.results.filter((r) => r.status === 'ok').map((r) => [r.name.replace(/^ticketing\./, ''), r.counts.rows]));
    expect(rows.tickets).toBeGreaterThanOrEqual(25);
    expect(rows.tickets, 'incremental: only the lookback and the changes').toBeLessThan(sim.ticketing.tickets.timeline.count / 2);
    expect(rows.users).toBeGreaterThanOrEqual(10);
    expect((await runCli(['load'], envFor(sim, dataDir))).code).toBe(0);
    await expectWarehouseEqualsTruth(sim, dataDir);
    const ticketKeys = await warehouseKeys(dataDir, 'tickets');
    for (const key of added) expect(ticketKeys.has(key)).toBe(true);
    const users = await warehouseKeys(dataDir, 'users');
    const now = truth(sim, 'users');
    for (const key of touched) expect(users.get(key)).toBe(now.get(key));

    const counts = await queryWarehouse(dataDir, 'select count(*) as n, max(_run_id) as run from raw.ticketing_tickets');
    const again = await runCli(['load'], envFor(sim, dataDir));
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/nothing new to load/);
    expect(await queryWarehouse(dataDir, 'select count(*) as n, max(_run_id) as run from raw.ticketing_tickets')).toEqual(counts);
  });

  it('converges after a kill -9 mid-run: a re-run loses nothing', async () => {
    const sim = await simulator();
    const dataDir = tempDataDir();
    // Killed (SIGKILL, by itself) once its fifth page is spooled: some resources mid-page, none
    // of them past their last page, however fast the run goes.
    const run = watch(spawnCli(['extract'], envFor(sim, dataDir, { FANLAKE_CONCURRENCY: '2', [CRASH_AT_ENV]: 'extract:page-spooled#5' })));
    const killed = await run.done;
    expect(killed.signal).toBe('SIGKILL');
    expect(killed.stderr, 'the run was still going').not.toMatch(/^run \S+$/m);
    expect((killed.stderr.match(/^ticketing\.\w+: ok/gm) ?? []).length, 'the run was still going').toBeLessThan(TICKETING_RESOURCES.length);
    const rerun = await runCli(['extract'], envFor(sim, dataDir));
    expect(rerun.code, rerun.stderr).toBe(0);
    expect((await runCli(['load'], envFor(sim, dataDir))).code).toBe(0);
    await expectWarehouseEqualsTruth(sim, dataDir);
  });

  it('exits 1 on a bad token, naming the variable and never printing the token', async () => {
    const sim = await simulator();
    const dataDir = tempDataDir();
    const token = 'wrong-token-Zq81';
    const result = await runCli(['extract', '--resource', 'users'], { ...envFor(sim, dataDir), FANLAKE_TICKETING_TOKEN: token });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/FANLAKE_TICKETING_TOKEN/);
    expect(result.stdout + result.stderr).not.toContain(token);
    const json = await runJson(['extract', '--resource', 'users'], { ...envFor(sim, dataDir), FANLAKE_TICKETING_TOKEN: token });
    expect(json.code).toBe(1);
    // One per window asked, each refused.
    expect(json.step.errors.length).toBeGreaterThan(0);
    for (const error of json.step.errors) {
      expect(error).toMatchObject({ code: 'E_HTTP_AUTH', retryable: false, message: expect.stringMatching(/FANLAKE_TICKETING_TOKEN/), context: { source: 'ticketing', resource: 'users', status: 401 } });
    }
    expect(json.stdout).not.toContain(token);
    expect(readdirSync(dataDir).includes('state') ? readdirSync(join(dataDir, 'state')) : []).toEqual([]);
  });

  it('a window whose requests keep failing is an error object naming the window and page; the other windows land', async () => {
    const sim = await simulator();
    const dataDir = tempDataDir();
    // The first window starts at the start date, 2000-01-01T00:00:00Z.
    sim.faults.force(/^\/api\/tickets\?date_init=946684800&/, 'status-500');
    const extract = await runJson(['extract', '--resource', 'tickets'], { ...envFor(sim, dataDir), FANLAKE_HTTP_MAX_ATTEMPTS: '2' });
    expectOneError(extract, { name: 'ticketing.tickets', status: 'partial' }, {
      code: 'E_HTTP_GAVE_UP',
      retryable: true,
      message: 'gave up after 2 attempts',
      context: { source: 'ticketing', resource: 'tickets', window: expect.stringMatching(/^2000-01-01T00:00:00Z\.\./), page: expect.any(Number), status: 500, attempts: 2 },
    });
    expect(extract.result('ticketing.tickets')?.counts.rows).toBe([...sim.ticketingRecords('tickets')].length);
    expect(extract.document.status).toBe('failed');
  });

  it('quarantines malformed records with a reason and counts them', async () => {
    const sim = await simulator();
    const dataDir = tempDataDir();
    expect((await runCli(['extract', '--resource', 'tickets'], envFor(sim, dataDir))).code).toBe(0);
    expect((await runCli(['load'], envFor(sim, dataDir))).code).toBe(0);
    // Changed a minute ago: inside the next run's lookback.
    const aMinuteAgo = Date.now() - 60_000;
    const lastUpdate = new Date(aMinuteAgo).toISOString();
    sim.addTicketingVerbatim('tickets', [
      { id: 'BAD-1', last_update: lastUpdate, id_event: 'not a number' },
      { last_update: lastUpdate, season: '2026' },
      { id: 'ODD-1', last_update: lastUpdate, user_held_email: '  Messy@Example.COM ', new_field: { nested: [1, 2] } },
    ], aMinuteAgo);
    const result = await runJson(['extract', '--resource', 'tickets'], envFor(sim, dataDir));
    expect(result.code, result.stderr).toBe(0);
    expect(result.result('ticketing.tickets')).toMatchObject({ status: 'ok', counts: { quarantined: 2 } });
    expect(result.step.notes).toContainEqual(expect.stringMatching(/^ticketing\.tickets: 2 records quarantined/));
    const runs = readdirSync(join(dataDir, 'raw', 'ticketing', 'tickets')).sort();
    const lines = readFileSync(join(dataDir, 'raw', 'ticketing', 'tickets', runs[1]!, 'quarantine.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.reason).join(' ')).toMatch(/id_event/);
    expect(lines.map((l) => l.reason).join(' ')).toMatch(/\bid\b/);
    const load = await runCli(['load'], envFor(sim, dataDir));
    expect(load.code).toBe(0);
    expect(load.stderr).toMatch(/added column new_field/);
    const odd = await queryWarehouse(dataDir, "select user_held_email, new_field::varchar as nf from raw.ticketing_tickets where id = 'ODD-1'");
    expect(odd).toEqual([{ user_held_email: '  Messy@Example.COM ', nf: '{"nested":[1,2]}' }]);
    expect(await queryWarehouse(dataDir, "select count(*) as n from raw.ticketing_tickets where id = 'BAD-1'")).toEqual([{ n: '0' }]);
  });

  it.each(['zero-based', 'one-based'] as const)('detects the page base of /api/members (%s variant)', async (variant) => {
    const sim = await simulator({ membersVariant: variant });
    const dataDir = tempDataDir();
    const result = await runCli(['extract', '--resource', 'members'], envFor(sim, dataDir));
    expect(result.code, result.stderr).toBe(0);
    expect((await runCli(['load'], envFor(sim, dataDir))).code).toBe(0);
    const actual = await warehouseKeys(dataDir, 'members');
    expect(actual.size).toBe(truth(sim, 'members').size);
  });
});
