import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/simulator.js';
import { clockAhead, runCli, tempDataDir } from '../helpers/cli.js';
import { startTestSimulator } from '../helpers/simulator.js';
import { runJson } from '../helpers/stage-json.js';
import { queryWarehouse } from '../helpers/warehouse.js';
import { cliEnv } from '../warehouse/identity-fixture.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const HOUR = 3_600_000;
const FRESHNESS = 'raw.ticketing_members: freshness(_extracted_at)';

describe('freshness of a quiet raw table', () => {
  it('passes for a table read every run whose records did not change for longer than its error threshold, and fails once reads stop', async () => {
    sim = await startTestSimulator();
    const dataDir = tempDataDir();
    const at = (hours: number) => ({ ...cliEnv(sim!, dataDir), ...clockAhead(hours * HOUR) });
    const extractAndLoad = async (hours: number) => {
      expect((await runCli(['extract', '--source', 'ticketing', '--resource', 'members'], at(hours))).code).toBe(0);
      expect((await runCli(['load'], at(hours))).code).toBe(0);
    };
    const lastMessage = async () =>
      String((await queryWarehouse(dataDir, `select message from meta.check_results where test_name = '${FRESHNESS}' order by checked_at desc limit 1`))[0]!.message);
    await extractAndLoad(0);
    // 80 h later (error after 74 h in sql/sources.json) a run reads the members again: nothing changed.
    await extractAndLoad(80);

    const fresh = (await runJson(['check'], at(81))).result(FRESHNESS);
    expect(fresh).toMatchObject({ status: 'pass' });
    expect(await lastMessage()).toMatch(/^last read from the source 1\.\d h ago, latest _extracted_at is 81\.\d h old/);

    // No read for 80 h more: stale by its last read, as before.
    const stale = (await runJson(['check'], at(161))).result(FRESHNESS);
    expect(stale).toMatchObject({ status: 'fail', severity: 'error' });
    expect(await lastMessage()).toMatch(/^last read from the source 81\.\d h ago/);
  });
});
