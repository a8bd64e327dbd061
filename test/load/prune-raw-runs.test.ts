import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneRawRuns, rawLayerBytes } from '../../src/load/prune-raw-runs.js';
import type { Simulator } from '../../src/simulator/simulator.js';
import { runCli, tempDataDir } from '../helpers/cli.js';
import { startTestSimulator } from '../helpers/simulator.js';
import { cliEnv } from '../warehouse/identity-fixture.js';
import { queryWarehouse } from '../helpers/warehouse.js';

let sim: Simulator;
let dataDir: string;
beforeAll(async () => {
  sim = await startTestSimulator();
  dataDir = tempDataDir();
  const env = cliEnv(sim, dataDir);
  // Two loaded runs, then one extracted but not loaded; one incremental resource and two snapshot ones keep it quick.
  const extract = ['extract', '--resource', 'tickets', 'consent_texts', 'campaign_apps'];
  for (const args of [extract, ['load'], extract, ['load'], extract]) {
    const result = await runCli(args, env);
    expect(result.code, result.stderr).toBe(0);
  }
});
afterAll(() => sim.close());

/** Run folders on disk: `source/resource` → run ids, oldest first. */
function runsOnDisk(): Map<string, string[]> {
  const runs = new Map<string, string[]>();
  for (const source of readdirSync(join(dataDir, 'raw'))) {
    for (const resource of readdirSync(join(dataDir, 'raw', source))) {
      runs.set(`${source}/${resource}`, readdirSync(join(dataDir, 'raw', source, resource)).filter((name) => name.startsWith('run=')).map((name) => name.slice(4)).sort());
    }
  }
  return runs;
}

describe('pruneRawRuns', () => {
  it('keeps everything younger than the retention, and everything when the retention is 0', async () => {
    const before = runsOnDisk();
    expect(await pruneRawRuns({ dataDir, retentionDays: 30 })).toEqual({ runs: 0, bytes: 0 });
    expect(await pruneRawRuns({ dataDir, retentionDays: 0, now: new Date(Date.now() + 365 * 86_400_000) })).toEqual({ runs: 0, bytes: 0 });
    expect(runsOnDisk()).toEqual(before);
  });

  it('removes old loaded runs, never one not loaded yet nor the newest loaded snapshot; the warehouse keeps the rows', async () => {
    const before = runsOnDisk();
    const ledger = await queryWarehouse(dataDir, `select source || '/' || resource as resource, run_id, is_snapshot from meta.load_ledger order by run_id`);
    const rowsBefore = await queryWarehouse(dataDir, 'select count(*)::int as n from raw.ticketing_tickets');
    const bytesBefore = await rawLayerBytes(dataDir);

    const result = await pruneRawRuns({ dataDir, retentionDays: 30, now: new Date(Date.now() + 40 * 86_400_000) });

    const after = runsOnDisk();
    let removed = 0;
    for (const [resource, runs] of before) {
      const loaded = ledger.filter((row) => row.resource === resource);
      const newestSnapshot = loaded.filter((row) => row.is_snapshot).at(-1)?.run_id;
      const expected = runs.filter((runId) => runId === runs.at(-1) || runId === newestSnapshot || !loaded.some((row) => row.run_id === runId));
      expect(after.get(resource), resource).toEqual(expected);
      removed += runs.length - expected.length;
    }
    expect(removed).toBeGreaterThan(0);
    expect(result.runs).toBe(removed);
    expect(result.bytes).toBe(bytesBefore - (await rawLayerBytes(dataDir)));
    expect(await queryWarehouse(dataDir, 'select count(*)::int as n from raw.ticketing_tickets')).toEqual(rowsBefore);
    // The last extraction (not loaded) is whole, so the next load still has it.
    const unloaded = [...after.values()].map((runs) => runs.at(-1)!);
    expect(new Set(unloaded).size).toBe(1);
  });
});
