import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { quoteLiteral } from '../../src/core/duckdb.js';
import { SerialQueue } from '../../src/core/serial-queue.js';
import { REPO, watch, type WatchedProcess } from './cli.js';

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
