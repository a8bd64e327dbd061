import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/simulator.js';
import { sharedWarehouse } from '../helpers/shared-warehouse.js';
import { startTestSimulator } from '../helpers/simulator.js';
import { queryWarehouse } from '../helpers/warehouse.js';
import { cliEnv, runCliOk } from './identity-fixture.js';

/**
 * Keys that move only when someone decides (issue 44): the records grow by half between two
 * runs; `build` keeps the identity model in force and says a retrain is due; `identity train`
 * lists the records whose fan_id a new version would move and changes none; `identity train
 * --apply` puts it in force, and exactly the listed records move. Through the real CLI on the
 * default test simulator's shared warehouse; the growth is copies of its ticketing users under
 * new ids (the same persons again, as a club's second ticketing shop would bring).
 */
const SIMULATOR = { scale: 0.02, seed: 42 };

let sim: Simulator;
let env: Record<string, string>;
let dataDir: string;
let recordsBefore: number;
let buildOutput: string;
let trainOutput: string;
let fansAfterBuild: Map<string, string>;
let fansAfterTrain: Map<string, string>;
let fansAfterApply: Map<string, string>;
let listed: string[];
let inForce: Record<string, unknown>[];
let churn: Record<string, unknown>[];
let statusOutput: string;

const fans = async () => new Map((await queryWarehouse(dataDir, 'select record_key, fan_id from intermediate.int_identity_clusters')).map((row) => [String(row.record_key), String(row.fan_id)]));

beforeAll(async () => {
  sim = await startTestSimulator(SIMULATOR);
  dataDir = await sharedWarehouse({ simulator: SIMULATOR });
  env = cliEnv(sim, dataDir);
  [{ records: recordsBefore }] = (await queryWarehouse(dataDir, 'select count(*)::integer as records from intermediate.int_identity_records')) as [{ records: number }];

  // changed a minute ago: inside the next extraction's window, which runs to the wall clock
  const now = Date.now() - 60_000;
  const users = [...sim.ticketingRecords('users')];
  const firstId = Math.max(...users.map((user) => Number(user.id))) + 1;
  // the same persons again, written anew: another e-mail and no phone, so the new records teach a retrain that an e-mail differing is common among matches
  const copies = Array.from({ length: Math.ceil(recordsBefore / 2) }, (_, at) => ({
    ...users[at % users.length]!,
    id: firstId + at,
    email: `fan${firstId + at}@example.org`,
    phone: '',
    last_update: new Date(now).toISOString(),
  }));
  sim.addTicketingVerbatim('users', copies, now);
  await runCliOk(['extract'], env);
  await runCliOk(['load'], env);
  const built = await runCliOk(['build'], { ...env, FANLAKE_LOG_LEVEL: 'info' });
  buildOutput = built;
  fansAfterBuild = await fans();

  trainOutput = await runCliOk(['identity', 'train'], env);
  fansAfterTrain = await fans();
  const file = /every record that would move: (\S+)/.exec(trainOutput)?.[1];
  expect(file, trainOutput).toBeDefined();
  listed = (await readFile(file!, 'utf8')).trim().split('\n').slice(1).map((line) => line.split(',')[0]!);

  await runCliOk(['identity', 'train', '--apply'], env);
  fansAfterApply = await fans();
  inForce = await queryWarehouse(dataDir, 'select model_version, applied_by from meta.identity_model_in_force order by applied_at');
  churn = await queryWarehouse(dataDir, 'select model_version, model_applied, records_moved, retrain_due from meta.identity_fan_churn order by built_at');
  statusOutput = await runCliOk(['status'], env);
}, 300_000);

afterAll(async () => {
  await sim?.close();
});

describe('identity keys move only when someone decides', () => {
  it('build after the records grew by half keeps the model in force and says a retrain is due', () => {
    expect(fansAfterBuild.size).toBeGreaterThanOrEqual(recordsBefore * 1.5);
    expect(buildOutput + '').toBeDefined();
    expect(inForce[0]).toEqual({ model_version: 1, applied_by: 'first build' });
    expect(churn.at(-2)).toMatchObject({ model_version: 1 });
    expect(String(churn.at(-2)!.retrain_due)).toMatch(/records grew by 5\d%/);
  });

  it('identity train lists the records whose fan_id would move and moves none', () => {
    expect(trainOutput).toMatch(/records' fan_id would move/);
    expect(fansAfterTrain).toEqual(fansAfterBuild);
    console.log(trainOutput);
  });

  it('identity train --apply puts the new version in force and moves exactly the listed records', () => {
    expect(inForce.at(-1)).toEqual({ model_version: 2, applied_by: 'identity train --apply' });
    const moved = [...fansAfterApply].filter(([record, fan]) => fansAfterBuild.get(record) !== fan).map(([record]) => record).sort();
    expect(moved).toEqual([...listed].sort());
    expect(churn.at(-1)).toMatchObject({ model_version: 2, model_applied: true, records_moved: String(listed.length) });
  });

  it('status shows the model in force and the last build\'s churn', () => {
    expect(statusOutput).toContain('identity model version 2 in force');
  });
});
