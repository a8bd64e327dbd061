import { spawn } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { quoteIdent, quoteLiteral } from '../../src/core/duckdb.js';
import { SerialQueue } from '../../src/core/serial-queue.js';
import { recordRawWrite } from '../../src/warehouse/changed-keys.js';
import { REPO, tempDataDir, watch, type WatchedProcess } from './cli.js';

/**
 * Runs a query against a data dir's warehouse (read-only) and returns plain JSON rows. The
 * warehouse is attached, as `warehouse` (its name when opened itself), to one in-memory DuckDB
 * of the test worker for the query, and detached after it: no file stays open between queries,
 * whatever command a test runs next. Creating a DuckDB for each query cost more than the query
 * and the attach together, and a run makes hundreds of them. One query at a time: they share
 * the one connection.
 */
export function queryWarehouse(dataDir: string, sql: string): Promise<Record<string, any>[]> {
  return queries.run(() => queryAttached(join(dataDir, 'warehouse.duckdb'), sql));
}

const queries = new SerialQueue();
let reader: Promise<DuckDBConnection> | undefined;

async function queryAttached(path: string, sql: string): Promise<Record<string, any>[]> {
  const connection = await (reader ??= DuckDBInstance.create(':memory:').then((instance) => instance.connect()));
  await connection.run(`attach ${quoteLiteral(path)} as warehouse (read_only)`);
  try {
    await connection.run('use warehouse');
    const result = await connection.runAndReadAll(sql);
    return result.getRowObjectsJson() as Record<string, any>[];
  } finally {
    await connection.run('use memory');
    await connection.run('detach warehouse');
  }
}

/**
 * Another process holding a data dir's warehouse file open (hold-database.mjs), as an analyst's
 * DuckDB would, once it has it open; closing its stdin lets go.
 */
export async function holdWarehouse(dataDir: string, mode: 'READ_ONLY' | 'READ_WRITE'): Promise<WatchedProcess> {
  const holder = watch(spawn(process.execPath, [join(REPO, 'test/helpers/hold-database.mjs'), join(dataDir, 'warehouse.duckdb'), mode], { stdio: ['pipe', 'pipe', 'pipe'], cwd: REPO }));
  await holder.waitFor(/open/);
  return holder;
}

/** A new data dir holding a copy of `dataDir`'s warehouse: to change and build, or to build in full beside it. */
export function copyWarehouse(dataDir: string): string {
  const copy = tempDataDir();
  copyFileSync(join(dataDir, 'warehouse.duckdb'), join(copy, 'warehouse.duckdb'));
  return copy;
}

/**
 * The warehouse to query and change as a load does: `loaded` records that a load wrote a raw
 * table (its generation moves on, as the loader records it after its merge), which a build
 * follows.
 */
export async function changeWarehouse<T>(
  dataDir: string,
  fn: (run: (sql: string) => Promise<Record<string, unknown>[]>, loaded: (relation: string) => Promise<void>) => Promise<T>,
): Promise<T> {
  const instance = await DuckDBInstance.create(join(dataDir, 'warehouse.duckdb'));
  const connection = await instance.connect();
  try {
    return await fn(
      async (sql) => (await connection.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[],
      (relation) => recordRawWrite(connection, relation, true),
    );
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** Columns that say when a build read or computed a row (read_at, changed_at), not what it holds. */
const BUILD_TIME_COLUMNS = ['read_at', 'changed_at'];

/**
 * Every row of each relation as sorted JSON lines, but for build times, to compare two builds
 * (incremental and full); `aside`: more columns left out, by relation (its lineage columns).
 */
export async function tableSnapshot(dataDir: string, relations: readonly string[], aside: Readonly<Record<string, readonly string[]>> = {}): Promise<Map<string, string>> {
  const tables = new Map<string, string>();
  for (const relation of relations) {
    const [schema, table] = relation.split('.');
    const [present] = await queryWarehouse(
      dataDir,
      `select list(column_name) filter (where column_name in (${BUILD_TIME_COLUMNS.map(quoteLiteral).join(', ')})) as columns from duckdb_columns() where schema_name = ${quoteLiteral(schema!)} and table_name = ${quoteLiteral(table!)}`,
    );
    const buildTimes = [...((present?.columns as string[] | null) ?? []), ...(aside[relation] ?? [])];
    const rows = await queryWarehouse(dataDir, `select * ${buildTimes.length > 0 ? `exclude (${buildTimes.map(quoteIdent).join(', ')})` : ''} from ${relation} order by all`);
    tables.set(relation, rows.map((row) => JSON.stringify(row)).join('\n'));
  }
  return tables;
}
