import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/simulator.js';
import { runCli, tempDataDir } from '../helpers/cli.js';
import { startTestSimulator } from '../helpers/simulator.js';
import { runJson } from '../helpers/stage-json.js';
import { queryWarehouse } from '../helpers/warehouse.js';

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

function manifestOf(dataDir: string, runId: string): any {
  return JSON.parse(readFileSync(join(dataDir, 'raw', 'engagement', 'customer_profiles', `run=${runId}`, '_manifest.json'), 'utf8'));
}

/** The profiles the source serves and those the warehouse holds (not vanished): id and the fields a change revises. */
async function sourceAndWarehouse(sim: Simulator, dataDir: string): Promise<{ source: string[]; warehouse: string[] }> {
  const line = (profile: Record<string, unknown>) => [profile.id, profile.street, profile.postalCode, profile.imageUrl].map((value) => String(value ?? '')).join(' ');
  const source = [...sim.engagementRecords('customer_profiles')].map(line).sort();
  const rows = await queryWarehouse(dataDir, `select cast(id as varchar) as id, street, postalCode, imageUrl from raw.engagement_customer_profiles where _vanished_at is null`);
  return { source, warehouse: rows.map(line).sort() };
}

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
    expect(manifestOf(dataDir, first).base).toMatchObject({ rows: sim.engagement.profiles.liveCount });
    expect((await runCli(['load'], env)).code).toBe(0);
    sim.changeCustomerProfiles({ count: 3 });
    const second = await extract();
    expect(manifestOf(dataDir, second).base.runId).toBe(first);

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
    expect(manifestOf(dataDir, whole)).toMatchObject({ snapshot: true, rows: sim.engagement.profiles.liveCount });
    expect(manifestOf(dataDir, whole).keys).toBeUndefined();
    expect(JSON.parse(readFileSync(join(dataDir, 'state', 'engagement-snapshots.json'), 'utf8')).whole).toEqual({});
    expect((await runCli(['load'], env)).code).toBe(0);
    const { source, warehouse: held } = await sourceAndWarehouse(sim, dataDir);
    expect(held).toEqual(source);
    expect(await queryWarehouse(dataDir, `select count(*) as n from raw.engagement_customer_profiles where _vanished_at is not null and cast(id as varchar) = '${gone}'`)).toEqual([{ n: '1' }]);

    // Differences resume once the whole snapshot is in.
    expect(manifestOf(dataDir, await extract()).base.runId).toBe(whole);
  });
});
