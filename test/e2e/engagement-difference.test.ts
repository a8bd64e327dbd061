import { copyFileSync, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
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

/** The profiles the source serves and those the warehouse holds (not vanished): id and the fields a change revises. */
async function sourceAndWarehouse(sim: Simulator, dataDir: string): Promise<{ source: string[]; warehouse: string[] }> {
  const line = (profile: Record<string, unknown>) => [profile.id, profile.street, profile.postalCode, profile.imageUrl].map((value) => String(value ?? '')).join(' ');
  const source = [...sim.engagementRecords('customer_profiles')].map(line).sort();
  const rows = await queryWarehouse(dataDir, `select cast(id as varchar) as id, street, postalCode, imageUrl from raw.engagement_customer_profiles where _vanished_at is null`);
  return { source, warehouse: rows.map(line).sort() };
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

describe('a snapshot difference loaded onto another warehouse state', { timeout: 300_000 }, () => {
  it('is skipped with a warning, stays on disk and out of later loads, and the next extract writes the resource whole', async () => {
    const sim = await startTestSimulator({ scale: 0.02 });
    sims.push(sim);
    const dataDir = tempDataDir();
    const env = envFor(sim, dataDir);
    const extract = async () => {
      const run = await runJson(['extract', '--resource', 'customer_profiles'], env);
      expect(run.code, run.stderr).toBe(0);
      return run.document.runId;
    };
    const warehouse = join(dataDir, 'warehouse.duckdb');

    await extract();
    expect((await runCli(['load'], env)).code).toBe(0);
    const backup = join(dataDir, 'warehouse.backup.duckdb');
    expect(existsSync(`${warehouse}.wal`)).toBe(false);
    copyFileSync(warehouse, backup);

    sim.changeCustomerProfiles({ count: 3 });
    const first = await extract();
    expect(manifestOf(dataDir, 'customer_profiles', first).base).toMatchObject({ rows: sim.engagement.profiles.liveCount });
    expect((await runCli(['load'], env)).code).toBe(0);
    sim.changeCustomerProfiles({ count: 3 });
    const second = await extract();
    expect(manifestOf(dataDir, 'customer_profiles', second).base.runId).toBe(first);

    // The warehouse is restored from the backup taken before `first` was loaded: `first` was
    // cut against the backup's state and still applies; `second` was cut against a load of
    // `first` that the restored warehouse never saw.
    copyFileSync(backup, warehouse);
    const load = await runJson(['load'], env);
    expect(load.code, load.stderr).toBe(0);
    expect(load.step.status).toBe('ok');
    // The profiles and their people, read together: each table is judged alone, both alike here.
    expect(load.step.counts).toMatchObject({ runs: 2, skippedDifferences: 2 });
    expect(load.result('raw.engagement_customer_profiles')?.counts).toMatchObject({ runs: 1, skippedDifferences: 1 });
    expect(load.step.notes).toContainEqual(expect.stringMatching(new RegExp(`^warning: E_LOAD_DIFFERENCE_BASE: difference run ${second} of engagement\\.customer_profiles skipped: it was taken against run ${first} loaded at .* rows`)));
    expect(await queryWarehouse(dataDir, `select resource, run_id, code from meta.skipped_runs order by all`)).toEqual(
      ['customer_profiles', 'people'].map((resource) => ({ resource, run_id: second, code: 'E_LOAD_DIFFERENCE_BASE' })),
    );
    expect(existsSync(join(dataDir, 'raw', 'engagement', 'customer_profiles', `run=${second}`, '_manifest.json'))).toBe(true);

    // Accounted for: no later load takes it, nor warns again.
    const again = await runJson(['load'], env);
    expect(again.code).toBe(0);
    expect(again.step.notes).toEqual([]);
    expect(again.step.counts).toMatchObject({ runs: 0, skippedDifferences: 0 });

    sim.changeCustomerProfiles({ count: 2 });
    const [gone] = sim.removeCustomerProfiles([String([...sim.engagementRecords('customer_profiles')][5]!.id)]);
    const whole = await extract();
    expect(manifestOf(dataDir, 'customer_profiles', whole)).toMatchObject({ snapshot: true, rows: sim.engagement.profiles.liveCount });
    expect(manifestOf(dataDir, 'customer_profiles', whole).keys).toBeUndefined();
    expect(JSON.parse(readFileSync(join(dataDir, 'state', 'engagement-snapshots.json'), 'utf8')).whole).toEqual({});
    expect((await runCli(['load'], env)).code).toBe(0);
    const { source, warehouse: held } = await sourceAndWarehouse(sim, dataDir);
    expect(held).toEqual(source);
    expect(await queryWarehouse(dataDir, `select count(*) as n from raw.engagement_customer_profiles where _vanished_at is not null and cast(id as varchar) = '${gone}'`)).toEqual([{ n: '1' }]);

    // Differences resume once the whole snapshot is in.
    expect(manifestOf(dataDir, 'customer_profiles', await extract()).base.runId).toBe(whole);
  });
});
