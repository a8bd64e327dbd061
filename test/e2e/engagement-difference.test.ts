import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/simulator.js';
import { runCli, tempDataDir } from '../helpers/cli.js';
import { startTestSimulator } from '../helpers/simulator.js';
import { runJson } from '../helpers/stage-json.js';
import { holdWarehouse, queryWarehouse } from '../helpers/warehouse.js';

let sims: Simulator[] = [];
afterEach(async () => {
  await Promise.all(sims.map((sim) => sim.close()));
  sims = [];
});

function envFor(sim: Simulator, dataDir: string): Record<string, string> {
  return {
    FANLAKE_ENGAGEMENT_URL: sim.url,
    FANLAKE_ENGAGEMENT_API_KEY: sim.options.engagementApiKey,
    FANLAKE_ENGAGEMENT_ORG_ID: sim.options.orgId,
    FANLAKE_DATA_DIR: dataDir,
  };
}

const PROFILE_TABLES = ['customer_profiles', 'people', 'consents'];

/** The manifest of a resource's run. */
function manifestOf(dataDir: string, resource: string, runId: string): any {
  return JSON.parse(readFileSync(join(dataDir, 'raw', 'engagement', resource, `run=${runId}`, '_manifest.json'), 'utf8'));
}

/** Bytes of a run's raw files over every engagement resource. */
function runBytes(dataDir: string, runId: string): number {
  let total = 0;
  for (const resource of readdirSync(join(dataDir, 'raw', 'engagement'))) {
    const dir = join(dataDir, 'raw', 'engagement', resource, `run=${runId}`);
    try {
      for (const file of readdirSync(dir)) total += statSync(join(dir, file)).size;
    } catch {
      // not read by this run
    }
  }
  return total;
}

/** Rows of the profile tables as values (lineage aside) with their vanished flag, sorted. */
async function content(dataDir: string): Promise<string[]> {
  const rows: string[] = [];
  for (const table of PROFILE_TABLES) {
    const found = await queryWarehouse(dataDir, `select to_json(t) as row from (select * exclude (_run_id, _extracted_at, _vanished_at), _vanished_at is not null as vanished from raw.engagement_${table}) as t`);
    rows.push(...found.map((row) => `${table} ${row.row}`));
  }
  return rows.sort();
}

describe('engagement snapshots written as differences', { timeout: 300_000 }, () => {
  it('writes only new and changed records and the keys it saw, and the load ends as a whole snapshot would leave it', async () => {
    const sim = await startTestSimulator({ scale: 0.02 });
    sims.push(sim);
    const diffed = tempDataDir();
    const whole = tempDataDir();
    // The same reads into a second directory, loaded only at the end: every snapshot there is whole.
    const extract = async (dataDir: string) => {
      const run = await runJson(['extract', '--resource', ...PROFILE_TABLES], envFor(sim, dataDir));
      expect(run.code, run.stderr).toBe(0);
      expect((await runJson(['extract', '--resource', ...PROFILE_TABLES], envFor(sim, whole))).code).toBe(0);
      expect((await runCli(['load'], envFor(sim, dataDir))).code).toBe(0);
      return run;
    };
    const first = await extract(diffed);
    // The first snapshot has no warehouse to compare with: whole.
    expect(manifestOf(diffed, 'customer_profiles', first.document.runId).keys).toBeUndefined();
    const firstBytes = runBytes(diffed, first.document.runId);

    const quiet = await extract(diffed);
    const manifest = manifestOf(diffed, 'customer_profiles', quiet.document.runId);
    expect(manifest).toMatchObject({ snapshot: true, rows: 0, files: [], keys: { rows: sim.engagement.profiles.liveCount } });
    expect(runBytes(diffed, quiet.document.runId)).toBeLessThan(firstBytes / 5);
    // Every record seen is marked seen by this run; none vanished.
    expect(await queryWarehouse(diffed, `select count(*) filter (where _run_id <> '${quiet.document.runId}') as other, count(_vanished_at) as vanished from raw.engagement_customer_profiles`)).toEqual([{ other: '0', vanished: '0' }]);

    const changed = sim.changeCustomerProfiles({ count: 4 });
    // One that did not change: the simulator's clock, which seeds its picks, runs on, and a
    // profile both changed and removed is no changed row.
    const unchanged = [...sim.engagementRecords('customer_profiles')].map((profile) => String(profile.id)).filter((id) => !changed.includes(id));
    const [removed] = sim.removeCustomerProfiles([unchanged[7]!]);
    const after = await extract(diffed);
    expect(after.result('engagement.customer_profiles')?.counts.rows).toBe(changed.length);
    expect(manifestOf(diffed, 'customer_profiles', after.document.runId).keys.rows).toBe(sim.engagement.profiles.liveCount);
    expect(await queryWarehouse(diffed, `select id from raw.engagement_customer_profiles where _vanished_at is not null`)).toEqual([{ id: removed }]);

    expect((await runCli(['load'], envFor(sim, whole))).code).toBe(0);
    expect(await content(diffed)).toEqual(await content(whole));
  });

  it('keeps a snapshot whole while an earlier run of the resource waits to be loaded', async () => {
    const sim = await startTestSimulator({ scale: 0.02 });
    sims.push(sim);
    const dataDir = tempDataDir();
    expect((await runCli(['extract', '--resource', 'customer_profiles'], envFor(sim, dataDir))).code).toBe(0);
    expect((await runCli(['load'], envFor(sim, dataDir))).code).toBe(0);
    const pending = await runJson(['extract', '--resource', 'customer_profiles'], envFor(sim, dataDir));
    const next = await runJson(['extract', '--resource', 'customer_profiles'], envFor(sim, dataDir));
    expect(manifestOf(dataDir, 'customer_profiles', pending.document.runId).keys).toBeDefined();
    expect(manifestOf(dataDir, 'customer_profiles', next.document.runId)).toMatchObject({ rows: sim.engagement.profiles.liveCount });
    expect(manifestOf(dataDir, 'customer_profiles', next.document.runId).keys).toBeUndefined();
  });

  it('keeps every snapshot whole while a process outside fanlake holds the warehouse for writing, and compares again once it is gone', async () => {
    const sim = await startTestSimulator({ scale: 0.02 });
    sims.push(sim);
    const dataDir = tempDataDir();
    expect((await runCli(['extract', '--resource', ...PROFILE_TABLES], envFor(sim, dataDir))).code).toBe(0);
    expect((await runCli(['load'], envFor(sim, dataDir))).code).toBe(0);

    const holder = await holdWarehouse(dataDir, 'READ_WRITE');
    const held = await runJson(['extract', '--resource', ...PROFILE_TABLES], envFor(sim, dataDir));
    holder.child.stdin!.end();
    await holder.done;
    expect(held.code, held.stderr).toBe(0);
    for (const table of PROFILE_TABLES) expect(manifestOf(dataDir, table, held.document.runId).keys, table).toBeUndefined();

    expect((await runCli(['load'], envFor(sim, dataDir))).code).toBe(0);
    const after = await runJson(['extract', '--resource', ...PROFILE_TABLES], envFor(sim, dataDir));
    for (const table of PROFILE_TABLES) expect(manifestOf(dataDir, table, after.document.runId).keys, table).toBeDefined();
  });
});
