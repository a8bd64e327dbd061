import { appendFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/simulator.js';
import { tempDataDir } from '../helpers/cli.js';
import { startTestSimulator } from '../helpers/simulator.js';
import { expectOneError, runJson } from '../helpers/stage-json.js';
import { queryWarehouse } from '../helpers/warehouse.js';
import { cliEnv } from '../warehouse/identity-fixture.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startTestSimulator();
});
afterAll(() => sim.close());

describe('stage commands with --format json', () => {
  it('extract, load, build and check each print one run summary with their one step, exit codes to match', async () => {
    const dataDir = tempDataDir();
    const env = cliEnv(sim, dataDir);

    const extract = await runJson(['extract', '--source', 'ticketing'], env);
    expect(extract.code).toBe(0);
    expect(extract.document.steps.map((s) => s.step)).toEqual(['extract']);
    expect(extract.document.status).toBe('ok');

    const load = await runJson(['load'], env);
    expect(load.code).toBe(0);
    const [loaded] = await queryWarehouse(dataDir, `select sum(rows)::int as n from meta.load_ledger where run_id = '${extract.document.runId}'`);
    expect(extract.step.counts.rows).toBe(loaded!.n);
    expect(load.step.counts.inserted).toBe(loaded!.n);

    const build = await runJson(['build'], env);
    expect(build.step.step).toBe('build');
    expect(build.code).toBe(build.document.status === 'ok' ? 0 : 1);
    const [models] = await queryWarehouse(dataDir, "select count(*)::int as n from duckdb_tables() where schema_name = 'marts'");
    expect(build.step.counts.built).toBeGreaterThanOrEqual(models!.n);

    const check = await runJson(['check'], env);
    expect(check.step.step).toBe('check');
    expect(check.code).toBe(check.document.status === 'ok' ? 0 : 1);
    const [recorded] = await queryWarehouse(dataDir, 'select count(*)::int as n from meta.check_results');
    expect(Object.values(check.step.counts).reduce((sum, n) => sum + n, 0)).toBe(recorded!.n);
  });

  it('a stage error keeps its shape: a raw file changed after extraction is E_LOAD_CHECKSUM naming the table and file', async () => {
    const dataDir = tempDataDir();
    const env = cliEnv(sim, dataDir);
    const extract = await runJson(['extract', '--resource', 'users'], env);
    expect(extract.code, extract.stderr).toBe(0);
    expect(extract.step.results).toEqual([expect.objectContaining({ name: 'ticketing.users', status: 'ok' })]);
    const [file] = readdirSync(join(dataDir, 'raw', 'ticketing', 'users'), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.parquet'));
    appendFileSync(join(dataDir, 'raw', 'ticketing', 'users', file!), 'x');

    expectOneError(await runJson(['load'], env), { name: 'raw.ticketing_users', status: 'failed' }, {
      code: 'E_LOAD_CHECKSUM',
      retryable: false,
      message: 'does not match the size and sha256',
      context: { table: 'raw.ticketing_users', source: 'ticketing', resource: 'users', path: expect.stringContaining(file!) },
    });
  });
});
