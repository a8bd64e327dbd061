import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { buildModels, runChecks } from '../../src/models/index.js';
import { withConnection } from '../../src/core/duckdb.js';
import { REPO, runCli } from '../helpers/cli.js';
import { queryWarehouse } from '../helpers/warehouse.js';
import { fixtureDataDir } from '../raw-contract/fixture-data-dir.js';

/**
 * A warehouse as fanlake at commit d2f276f left it, its bookkeeping in `raw`: `fanlake load` of
 * the data dir fixture (data-dir-b83438f) and a build of `models/`, kept as the text of DuckDB's
 * EXPORT DATABASE (`make-fixture.mjs` in the folder says how it was made).
 */
const FIXTURE = join(REPO, 'test', 'warehouse', 'fixtures', 'warehouse-d2f276f');
const MODELS = join(FIXTURE, 'models');
/** The fixture's models with data tests, for the check state. */
const CHECKED_MODELS = join(FIXTURE, 'checked-models');
const OLD_LEDGER = 'raw._fanlake_loads';
const OLD_BUILDS = 'raw._fanlake_builds';

/** The data dir fixture beside the old warehouse, made again from the export. */
async function upgradedDataDir(): Promise<string> {
  const dataDir = await fixtureDataDir();
  const exported = join(FIXTURE, 'export');
  const instance = await DuckDBInstance.create(join(dataDir, 'warehouse.duckdb'));
  const connection = await instance.connect();
  try {
    await connection.run(await readFile(join(exported, 'schema.sql'), 'utf8'));
    await connection.run((await readFile(join(exported, 'load.sql'), 'utf8')).replaceAll(" FROM '", ` FROM '${exported}/`));
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  return dataDir;
}

const ledgerRows = (dataDir: string, relation: string) =>
  queryWarehouse(dataDir, `select source, resource, run_id, extracted_at::varchar as extracted_at, loaded_at::varchar as loaded_at, rows, is_snapshot, files from ${relation} order by all`);
const buildRows = (dataDir: string, relation: string) => queryWarehouse(dataDir, `select * exclude (built_at), built_at::varchar as built_at from ${relation} order by relation`);
const tablesOf = async (dataDir: string, schema: string) =>
  (await queryWarehouse(dataDir, `select table_name from duckdb_tables() where schema_name = '${schema}' order by 1`)).map((row) => row.table_name);

describe('a warehouse made by the previous version', () => {
  it('keeps its load ledger and build state, moved to meta by the first load: nothing is loaded or built again', async () => {
    const dataDir = await upgradedDataDir();
    const ledger = await ledgerRows(dataDir, OLD_LEDGER);
    const builds = await buildRows(dataDir, OLD_BUILDS);
    expect(ledger).toHaveLength(2);
    expect(builds.map((row) => row.relation)).toEqual(['marts.consent_texts', 'marts.fct_merchandise_lines', 'marts.merchandise_by_city', 'staging.stg_merchandise']);

    const load = await runCli(['load'], { FANLAKE_DATA_DIR: dataDir });
    expect(load.code, load.stderr).toBe(0);
    expect(load.stderr).toContain('nothing new to load');
    expect(await ledgerRows(dataDir, 'meta.load_ledger')).toEqual(ledger);
    expect(await buildRows(dataDir, 'meta.build_state')).toEqual(builds);
    expect(await tablesOf(dataDir, 'raw')).toEqual(['engagement_consent_texts', 'ticketing_merchandise']);

    const results = await buildModels({ dataDir, modelsDir: MODELS });
    expect(results.map((result) => `${result.schema}.${result.model} ${result.status}`)).toEqual([
      'staging.stg_merchandise unchanged',
      'marts.consent_texts unchanged',
      'marts.fct_merchandise_lines unchanged',
      'marts.merchandise_by_city unchanged',
    ]);
  });

  it('status reads the ledger where the previous version kept it until a writer moves it, and build moves both tables too', async () => {
    const dataDir = await upgradedDataDir();
    const ledger = await ledgerRows(dataDir, OLD_LEDGER);
    const builds = await buildRows(dataDir, OLD_BUILDS);

    const status = await runCli(['status'], { FANLAKE_DATA_DIR: dataDir });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/engagement_consent_texts +1 +6 /);
    expect(status.stdout).toMatch(/ticketing_merchandise +1 +75 /);

    const results = await buildModels({ dataDir, modelsDir: MODELS });
    expect(results.every((result) => result.status === 'unchanged')).toBe(true);
    expect(await buildRows(dataDir, 'meta.build_state')).toEqual(builds);
    expect(await ledgerRows(dataDir, 'meta.load_ledger')).toEqual(ledger);
    expect(await tablesOf(dataDir, 'raw')).toEqual(['engagement_consent_texts', 'ticketing_merchandise']);
    expect(await tablesOf(dataDir, 'meta')).toEqual(['build_state', 'changed_keys', 'check_passes', 'check_results', 'check_state', 'extraction_runs', 'load_ledger', 'model_changes', 'quarantined_records', 'raw_tables', 'session_free_sql', 'skipped_runs']);

    const load = await runCli(['load'], { FANLAKE_DATA_DIR: dataDir });
    expect(load.code, load.stderr).toBe(0);
    expect(load.stderr).toContain('nothing new to load');
  });

  it('keeps the check state the previous version kept in raw (raw._fanlake_checks): the next check carries every result', async () => {
    const dataDir = await upgradedDataDir();
    const first = await runChecks({ dataDir, modelsDir: CHECKED_MODELS });
    expect(first.filter((result) => result.status === 'pass').length).toBeGreaterThan(0);
    // As the version that introduced it kept it: the same table, in raw.
    await withConnection(join(dataDir, 'warehouse.duckdb'), async (connection) => {
      await connection.run('create table raw._fanlake_checks as select * from meta.check_state; drop table meta.check_state');
    });
    const state = await queryWarehouse(dataDir, 'select test_name, check_run_id from raw._fanlake_checks order by all');
    expect(state.length).toBe(first.length);

    const second = await runChecks({ dataDir, modelsDir: CHECKED_MODELS });
    expect(second.map((result) => [result.name, result.status, result.carriedFrom?.checkRunId])).toEqual(first.map((result) => [result.name, result.status, state[0]!.check_run_id]));
    expect(await queryWarehouse(dataDir, 'select test_name, check_run_id from meta.check_state order by all')).toEqual(state);
    expect(await tablesOf(dataDir, 'raw')).toEqual(['engagement_consent_texts', 'ticketing_merchandise']);
  });
});
