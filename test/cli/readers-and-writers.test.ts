import { join } from 'node:path';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/simulator.js';
import { runCli, spawnCli, tempDataDir, watch } from '../helpers/cli.js';
import { sharedWarehouse } from '../helpers/shared-warehouse.js';
import { startTestSimulator } from '../helpers/simulator.js';
import { holdWarehouse } from '../helpers/warehouse.js';
import { cliEnv, runCliOk } from '../warehouse/identity-fixture.js';

/** The default test simulator's options, for the shared warehouse. */
const SIMULATOR = { scale: 0.02, seed: 42 };

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe('an open shell never keeps writers out', () => {
  it('answers queries before, during and after extract, load and build in other processes; everything succeeds', async () => {
    sim = await startTestSimulator(SIMULATOR);
    // extracted and loaded once per test run for every file that asks (sharedWarehouse)
    const dataDir = await sharedWarehouse({ simulator: SIMULATOR, build: false });
    const env = cliEnv(sim, dataDir);

    const shell = watch(spawnCli(['shell'], env, undefined, 'pipe'));
    let asked = 0;
    const ask = async () => {
      asked += 1;
      shell.child.stdin!.write(`select count(*) as answer_${asked} from raw.ticketing_users;\n`);
      await shell.waitFor(new RegExp(`answer_${asked}\\n-+\\n\\d+\\n`));
    };
    await ask();

    for (const writer of [['extract'], ['load'], ['build']]) {
      const process = watch(spawnCli(writer, env));
      let running = true;
      const finished = process.done.finally(() => (running = false));
      // Queries while the writer runs: each opens the warehouse for one statement only. One per
      // line of the writer's progress, as a person at a shell asks, not back to back (that only
      // took CPU from the writer), and never paced by a clock.
      while (running) {
        await ask();
        await Promise.race([finished, once(process.child.stderr!, 'data')]);
      }
      const result = await finished;
      expect(result.code, `fanlake ${writer[0]}\n${result.stderr}`).toBe(0);
      await ask();
    }
    shell.child.stdin!.end();
    const result = await shell.done;
    expect(result.code).toBe(0);
    expect(result.stderr).not.toMatch(/^error:/m);
    expect(asked).toBeGreaterThanOrEqual(7);
    await runCliOk(['sql', 'select count(*) from marts.dim_fan'], env);
  });
});

describe('a database file held by another process', () => {
  async function warehouseHeld(mode: 'READ_ONLY' | 'READ_WRITE') {
    const dataDir = tempDataDir();
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const instance = await DuckDBInstance.create(join(dataDir, 'warehouse.duckdb'));
    instance.closeSync();
    return { dataDir, holder: await holdWarehouse(dataDir, mode) };
  }

  it('a writer waits for a reader, says once what it waits for, and runs when the reader is gone', async () => {
    const { dataDir, holder } = await warehouseHeld('READ_ONLY');
    const load = watch(spawnCli(['load'], { FANLAKE_DATA_DIR: dataDir }));
    await load.waitFor(/warehouse\.duckdb is in use by another process; waiting up to 60 s/, 'stderr');
    holder.child.stdin!.end();
    const result = await load.done;
    expect(result.code).toBe(0);
    expect(result.stderr.match(/is in use/g)).toHaveLength(1);
  });

  it('a reader waits for a writer the same way, and gives up after the busy timeout naming the reason', async () => {
    const { dataDir, holder } = await warehouseHeld('READ_WRITE');
    const impatient = await runCli(['sql', 'select 1'], { FANLAKE_DATA_DIR: dataDir, FANLAKE_BUSY_TIMEOUT_SECONDS: '0' });
    expect(impatient.code).toBe(1);
    expect(impatient.stderr).toMatch(/warehouse\.duckdb stayed in use by another process for 0 s \(FANLAKE_BUSY_TIMEOUT_SECONDS\)/);

    const patient = watch(spawnCli(['sql', 'select 42 as answer'], { FANLAKE_DATA_DIR: dataDir }));
    await patient.waitFor(/is in use by another process; waiting/, 'stderr');
    holder.child.stdin!.end();
    const result = await patient.done;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('42');
  });
});
