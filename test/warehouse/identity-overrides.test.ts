import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/simulator.js';
import { runCli } from '../helpers/cli.js';
import { sharedWarehouse } from '../helpers/shared-warehouse.js';
import { startTestSimulator } from '../helpers/simulator.js';
import { queryWarehouse } from '../helpers/warehouse.js';
import { cliEnv, runCliOk } from './identity-fixture.js';

/**
 * The identity overrides file through the real CLI: extract and load the simulator, build, then
 * settle two pairs in the file at its default path and build again. The first three steps are
 * those of identity-incremental.test.ts, on the same (noisy) simulator: the files share the
 * warehouse they make (sharedWarehouse).
 */
const SIMULATOR = { scale: 0.05, seed: 11, noise: true };

let sim: Simulator;
let dataDir: string;
let env: Record<string, string>;
let before: Map<string, string>;
/** A fan of several records, and two of its records an analyst says are different people. */
let split: { fanId: string; records: string[]; apart: [string, string] };
/** Two records of fans of their own an analyst says are one person. */
let joined: [string, string];
let rebuild: string;

const linksOf = async () =>
  new Map(
    (await queryWarehouse(dataDir, `select system || ':' || record_id as record_key, fan_id from marts.fan_identity_links`)).map((row) => [
      row.record_key as string,
      row.fan_id as string,
    ]),
  );

/** The status `build` printed for a model (its table: model, materialized, status, ...). */
const statusIn = (output: string, relation: string) => new RegExp(`${relation.replace('.', '\\.')}\\s+\\S+\\s+(\\w+)`).exec(output)?.[1];

beforeAll(async () => {
  sim = await startTestSimulator(SIMULATOR);
  dataDir = await sharedWarehouse({ simulator: SIMULATOR });
  env = cliEnv(sim, dataDir);
  before = await linksOf();

  // the longest chain: a fan whose smallest and largest record keys are not linked directly
  const [fan] = await queryWarehouse(
    dataDir,
    `select fan_id, list(system || ':' || record_id order by system || ':' || record_id) as records
     from marts.fan_identity_links group by fan_id having count(*) >= 3 order by count(*) desc, fan_id limit 1`,
  );
  const records = fan!.records as string[];
  split = { fanId: fan!.fan_id, records, apart: [records[0]!, records[records.length - 1]!] };
  const singles = await queryWarehouse(
    dataDir,
    `select system || ':' || record_id as record_key from marts.fan_identity_links where match_rule = 'unmatched' order by record_key limit 2`,
  );
  joined = [singles[0]!.record_key, singles[1]!.record_key];

  writeFileSync(
    join(dataDir, 'identity_overrides.csv'),
    [
      '# settled by the membership desk',
      'record_a,record_b,decision,note',
      `${split.apart[1]},${split.apart[0]},different,"checked by phone, two people"`,
      '',
      `${joined[0]},${joined[1]},same,moved house`,
    ].join('\n') + '\n',
  );
  rebuild = await runCliOk(['build'], env);
}, 240_000);

afterAll(async () => {
  await sim?.close();
});

describe('identity overrides file', () => {
  it('rebuilds the identity models when the file changed, and leaves other models alone', () => {
    expect(statusIn(rebuild, 'intermediate.int_identity_overrides')).toBe('ok');
    expect(statusIn(rebuild, 'intermediate.int_identity_clusters')).toBe('ok');
    expect(statusIn(rebuild, 'marts.fan_identity_links')).toBe('ok');
    expect(statusIn(rebuild, 'marts.fct_tickets')).toBe('unchanged');
  });

  it('joins a pair settled as the same fan, by rule override', async () => {
    const after = await linksOf();
    expect(after.get(joined[0])).toBe(after.get(joined[1]));
    const rules = await queryWarehouse(
      dataDir,
      `select match_rule from marts.fan_identity_links where system || ':' || record_id in ('${joined[0]}', '${joined[1]}')`,
    );
    expect(rules.map((row) => row.match_rule)).toEqual(['override', 'override']);
    const [link] = await queryWarehouse(dataDir, `select * from marts.fan_identity_evidence where match_rule = 'override'`);
    expect(link).toMatchObject({ from_key: joined[0], to_key: joined[1], is_joined: true, note: 'line 5: moved house' });
  });

  it('keeps a pair settled as different in different fans, and every other record of theirs in one of the two', async () => {
    const after = await linksOf();
    const [a, b] = split.apart;
    expect(after.get(a)).not.toBe(after.get(b));
    const fans = new Set(split.records.map((record) => after.get(record)));
    expect(fans.size).toBeGreaterThanOrEqual(2);
    // the part holding the fan's smallest record key keeps the fan's id
    expect(after.get(split.records[0]!)).toBe(split.fanId);
    const [cut] = await queryWarehouse(
      dataDir,
      `select count(*) filter (where not is_joined) as cut, count(*) filter (where is_joined and fan_id not in (select fan_id from marts.dim_fan)) as orphans
       from marts.fan_identity_evidence`,
    );
    expect(Number(cut!.cut)).toBeGreaterThan(0);
    expect(cut!.orphans).toBe('0');
  });

  it('leaves every fan the file does not touch as it was', async () => {
    const after = await linksOf();
    const touched = new Set([...split.records, ...joined]);
    const moved = [...before].filter(([record, fanId]) => !touched.has(record) && after.get(record) !== fanId);
    expect(moved).toEqual([]);
  });

  it('leaves settled pairs out of the review list', async () => {
    const rows = await queryWarehouse(
      dataDir,
      `select * from marts.fan_identity_review where (record_a, record_b) in (('${[...split.apart].sort().join("', '")}'), ('${[...joined].sort().join("', '")}'))`,
    );
    expect(rows).toEqual([]);
  });

  it('refuses a malformed file, naming the file and line', async () => {
    const file = join(dataDir, 'broken-overrides.csv');
    writeFileSync(file, `record_a,record_b,decision\n${joined[0]},${joined[1]},same\n${joined[0]},ticketing_user:1,maybe\n`);
    const result = await runCli(['build', '--identity-overrides', file], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}:3: decision must be same or different`);

    const missing = await runCli(['build'], { ...env, FANLAKE_IDENTITY_OVERRIDES: join(dataDir, 'no-such-file.csv') });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no-such-file.csv cannot be read');
  });
});
