import { expect } from 'vitest';
import { join } from 'node:path';
import { withConnection } from '../../src/core/duckdb.js';
import { explainPair } from '../../src/models/identity-model/explain.js';
import { buildModels, runChecks } from '../../src/models/index.js';
import { tempDataDir } from '../helpers/cli.js';
import { queryWarehouse } from '../helpers/warehouse.js';
import { type RawRecords, user, writeRawTables } from './identity-fixture.js';
import { storeClubModel } from './identity-model-fixture.js';

/**
 * The helpers of the tests of a rule that follows the model in force (the birth-date and
 * first-name rules): records built through the real models with the club model of
 * identity-model-fixture.ts, some of its levels replaced, and what the tests read back.
 */

/** Ticketing users with names of their own, so that the names of the records under test are not the only ones. */
export const BACKDROP = [
  ['Kari', 'Lunde'], ['Ola', 'Lunde'], ['Per', 'Haugen'], ['Tone', 'Haugen'],
].map(([first, last], at) => user(900 + at, { name_first: first, name_last: last, email: `backdrop${at}@example.org`, phone: '' }));

/** `raw` built with the club model, the levels in `levels` replaced (comparison -> level -> [m, u]); the data dir. */
export async function placeWithClubModel(raw: RawRecords, levels: Record<string, Record<string, [number, number]>>): Promise<string> {
  const dataDir = tempDataDir();
  const warehouse = join(dataDir, 'warehouse.duckdb');
  await withConnection(warehouse, (connection) => storeClubModel(connection, levels));
  await writeRawTables(warehouse, raw);
  const results = await buildModels({ dataDir, select: ['+fan_identity_links', '+fan_identity_review'] });
  expect(results.filter((result) => result.status !== 'ok').map((result) => `${result.model}: ${result.error?.message ?? result.reason}`)).toEqual([]);
  return dataDir;
}

/** The fans of the records `keys` (system:record_id), one per record found. */
export const fansOf = async (dataDir: string, keys: readonly string[]) =>
  (await queryWarehouse(dataDir, `select fan_id from marts.fan_identity_links where system || ':' || record_id in (${keys.map((key) => `'${key}'`).join(', ')})`)).map((row) => row.fan_id);

/** The stored pair of two records (int_identity_pairs: its levels, weights, is_link, is_vetoed), or undefined where it was not stored. */
export const storedPairOf = async (dataDir: string, [a, b]: readonly [string, string]) =>
  (await queryWarehouse(dataDir, `select * from intermediate.int_identity_pairs where from_key = least('${a}', '${b}') and to_key = greatest('${a}', '${b}')`))[0];

/** `identity explain` of two records. */
export const explainOf = (dataDir: string, [a, b]: readonly [string, string]) => withConnection(join(dataDir, 'warehouse.duckdb'), (connection) => explainPair(connection, a, b));

/** The status of the data test that no fan holds two people. */
export const noContradiction = async (dataDir: string) => {
  const results = await runChecks({ dataDir, all: true });
  return results.filter((result) => result.name.includes('identity_fans_hold_no_contradiction')).map((result) => result.status);
};
