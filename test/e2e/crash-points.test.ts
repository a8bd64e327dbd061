import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { CRASH_AT_ENV, CRASH_POINTS, type CrashPoint } from '../../src/core/crash-point.js';
import type { Simulator } from '../../src/simulator/simulator.js';
import { runCli, tempDataDir } from '../helpers/cli.js';
import { startTestSimulator } from '../helpers/simulator.js';
import { runJson } from '../helpers/stage-json.js';
import { queryWarehouse } from '../helpers/warehouse.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const KEYED_TABLES = { ticketing_tickets: 'id', ticketing_users: 'id', ticketing_members: 'id', engagement_customer_profiles: 'id', engagement_people: 'id' };

/** Rows and distinct keys of the keyed raw tables, live rows only. */
async function rawCounts(dataDir: string): Promise<Record<string, { rows: number; keys: number }>> {
  const counts: Record<string, { rows: number; keys: number }> = {};
  for (const [table, key] of Object.entries(KEYED_TABLES)) {
    const live = table.startsWith('engagement') ? 'where _vanished_at is null' : '';
    const [row] = await queryWarehouse(dataDir, `select count(*) as rows, count(distinct ${key}) as keys from raw.${table} ${live}`);
    counts[table] = { rows: Number(row!.rows), keys: Number(row!.keys) };
  }
  return counts;
}

function sourceCounts(sim: Simulator): Record<string, { rows: number; keys: number }> {
  const count = (records: Iterable<unknown>) => [...records].length;
  const both = (n: number) => ({ rows: n, keys: n });
  return {
    ticketing_tickets: both(count(sim.ticketingRecords('tickets'))),
    ticketing_users: both(count(sim.ticketingRecords('users'))),
    ticketing_members: both(count(sim.ticketingRecords('members'))),
    engagement_customer_profiles: both(count(sim.engagementRecords('customer_profiles'))),
    engagement_people: both(count(sim.engagementRecords('people'))),
  };
}

it('names the points the tests crash at', () => {
  expect(CRASH_POINTS).toEqual(['extract:page-spooled', 'load:table-merged', 'load:committed', 'build:model-written']);
});

it('a command killed at each crash point is recovered by the next: nothing lost, nothing doubled', { timeout: 240_000 }, async () => {
  sim = await startTestSimulator();
  const dataDir = tempDataDir();
  const env = { ...sim.env, FANLAKE_DATA_DIR: dataDir };
  const crashing = (point: `${CrashPoint}${string}`, args: string[]) => runCli(args, { ...env, [CRASH_AT_ENV]: point });
  const killed = (result: { signal: NodeJS.Signals | null; stderr: string }) => expect(result.signal, result.stderr).toBe('SIGKILL');

  // Extract: killed after its second page; the next extract reads everything again.
  killed(await crashing('extract:page-spooled#2', ['extract']));
  const extract = await runJson(['extract'], env);
  expect(extract.code, extract.stderr).toBe(0);

  // Load: killed inside the transaction, nothing of it is in; killed after the commit, all of it is.
  killed(await crashing('load:table-merged', ['load']));
  expect(await queryWarehouse(dataDir, `select count(*) as tables from duckdb_tables() where schema_name = 'raw'`)).toEqual([{ tables: '0' }]);
  killed(await crashing('load:committed', ['load']));
  expect(await rawCounts(dataDir)).toEqual(sourceCounts(sim));
  // The committed runs are not loaded again.
  const load = await runJson(['load'], env);
  expect(load.code, load.stderr).toBe(0);
  expect(load.step.results.filter((result) => result.status !== 'skipped')).toEqual([]);
  expect(await rawCounts(dataDir)).toEqual(sourceCounts(sim));

  // Build: killed with a model written but not recorded; the next build writes it again.
  killed(await crashing('build:model-written#3', ['build']));
  const build = await runJson(['build'], env);
  expect(build.code, build.stderr).toBe(0);
  const check = await runCli(['check'], env);
  expect(check.code, check.stdout + check.stderr).toBe(0);
  // No run of the killed extract is left half-written for a load to read.
  for (const resource of readdirSync(join(dataDir, 'raw', 'ticketing'))) {
    for (const run of readdirSync(join(dataDir, 'raw', 'ticketing', resource))) expect(readdirSync(join(dataDir, 'raw', 'ticketing', resource, run))).toContain('_manifest.json');
  }
});
