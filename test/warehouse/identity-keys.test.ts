import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/simulator.js';
import { runCli } from '../helpers/cli.js';
import { sharedWarehouse } from '../helpers/shared-warehouse.js';
import { startTestSimulator } from '../helpers/simulator.js';
import { queryWarehouse } from '../helpers/warehouse.js';
import { cliEnv, runCliOk } from './identity-fixture.js';

/**
 * Keys that move only when someone decides, through the real CLI on the default test
 * simulator's shared warehouse: the records grow by half between two runs; `build` keeps the
 * identity model in force and says a retrain is due; `identity train` lists the records whose
 * fan_id a new version would move and changes none; `identity train --apply` puts it in force,
 * and exactly the listed records move; `check` warns of the churn. The growth is copies of
 * the simulator's ticketing users under new ids and another last name (a second shop where many
 * wrote their married name): version 1, trained before, keeps them apart; a version trained on
 * them learns that a last name differing is common among matches, and merges them.
 */
const SIMULATOR = { scale: 0.02, seed: 42 };

let sim: Simulator;
let dataDir: string;
let recordsBefore: number;
let built: { stdout: string; stderr: string };
let trained: string;
let fansAfterBuild: Map<string, string>;
let fansAfterTrain: Map<string, string>;
let fansAfterApply: Map<string, string>;
let listed: string[];
let inForce: Record<string, unknown>[];
let churn: Record<string, unknown>[];
let status: string;
let statusDue: string;
let doctor: string;
let checked: { code: number | null; stdout: string };

const fans = async () => new Map((await queryWarehouse(dataDir, 'select record_key, fan_id from intermediate.int_identity_clusters')).map((row) => [String(row.record_key), String(row.fan_id)]));

beforeAll(async () => {
  sim = await startTestSimulator(SIMULATOR);
  dataDir = await sharedWarehouse({ simulator: SIMULATOR });
  const env = cliEnv(sim, dataDir);
  [{ records: recordsBefore }] = (await queryWarehouse(dataDir, 'select count(*)::integer as records from intermediate.int_identity_records')) as [{ records: number }];

  // changed a minute ago: inside the next extraction's window, which runs to the wall clock
  const now = Date.now() - 60_000;
  const users = [...sim.ticketingRecords('users')];
  const firstId = Math.max(...users.map((user) => Number(user.id))) + 1;
  const copies = Array.from({ length: Math.ceil(recordsBefore / 2) }, (_, at) => ({
    ...users[at % users.length]!,
    id: firstId + at,
    name_last: ['Berg', 'Dahl', 'Lie', 'Moen'][at % 4],
    last_update: new Date(now).toISOString(),
  }));
  sim.addTicketingVerbatim('users', copies, now);
  await runCliOk(['extract'], env);
  await runCliOk(['load'], env);
  const build = await runCli(['build'], env);
  expect(build.code, build.stderr).toBe(0);
  built = build;
  fansAfterBuild = await fans();
  statusDue = await runCliOk(['status'], env);

  trained = await runCliOk(['identity', 'train'], env);
  fansAfterTrain = await fans();
  const file = /every record that would move: (\S+)/.exec(trained)?.[1];
  expect(file, trained).toBeDefined();
  listed = (await readFile(file!, 'utf8')).trim().split('\n').slice(1).map((line) => line.split(',')[0]!);

  // warned above 1% of the records moved
  await runCliOk(['identity', 'train', '--apply'], { ...env, FANLAKE_IDENTITY_CHURN_WARN_SHARE: '0.01' });
  fansAfterApply = await fans();
  inForce = await queryWarehouse(dataDir, 'select model_version, applied_by from meta.identity_model_in_force order by applied_at');
  churn = await queryWarehouse(dataDir, 'select model_version, model_applied, records_moved::integer as records_moved, retrain_due from meta.identity_fan_churn order by built_at');
  status = await runCliOk(['status'], env);
  checked = await runCli(['check'], env);
  doctor = (await runCli(['doctor'], env)).stdout;
}, 300_000);

afterAll(async () => {
  await sim?.close();
});

describe('identity keys move only when someone decides', () => {
  it('build after the records grew by half keeps the model in force and says a retrain is due', () => {
    expect(fansAfterBuild.size).toBeGreaterThanOrEqual(recordsBefore * 1.5);
    expect(inForce[0]).toEqual({ model_version: 1, applied_by: 'first build' });
    expect(churn.at(-2)).toMatchObject({ model_version: 1, model_applied: false });
    expect(String(churn.at(-2)!.retrain_due)).toMatch(/records grew by 5\d% since version 1/);
    expect(built.stdout + built.stderr).toMatch(/a retrain is due \(the records grew by 5\d%.*version 1 stays in force/);
    expect(statusDue).toContain('identity model version 1 in force');
    expect(statusDue).toMatch(/a retrain is due: the records grew by 5\d%/);
  });

  it('identity train lists the fans that would merge and the records whose fan_id would move, and moves none', () => {
    expect(listed.length).toBeGreaterThan(0);
    expect(trained).toContain(`${listed.length} of ${fansAfterBuild.size} records' fan_id would move`);
    expect(trained).toMatch(/[1-9]\d* would merge/);
    expect(trained).toContain(listed.sort()[0]);
    expect(fansAfterTrain).toEqual(fansAfterBuild);
  });

  it('identity train --apply puts the new version in force and moves exactly the listed records', () => {
    expect(inForce.at(-1)).toEqual({ model_version: 2, applied_by: 'identity train --apply' });
    const moved = [...fansAfterApply].filter(([record, fan]) => fansAfterBuild.get(record) !== fan).map(([record]) => record);
    expect(moved.sort()).toEqual(listed.sort());
    expect(churn.at(-1)).toMatchObject({ model_version: 2, model_applied: true, records_moved: listed.length, retrain_due: null });
  });

  it('status and doctor show the model in force and the last build\'s churn; check warns of it', () => {
    expect(status).toContain('identity model version 2 in force');
    expect(doctor).toContain('identity model version 2 in force since');
    expect(status).toContain(`${listed.length} of ${fansAfterBuild.size} records' fan_id moved`);
    expect(checked.code).toBe(0);
    expect(checked.stdout).toMatch(/tests\/identity_fan_churn\s.*warn/);
  });
});
