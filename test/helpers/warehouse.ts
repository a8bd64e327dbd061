import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { REPO, watch, type WatchedProcess } from './cli.js';

/** Runs a query against a data dir's warehouse (read-only) and returns plain JSON rows. */
export async function queryWarehouse(dataDir: string, sql: string): Promise<Record<string, any>[]> {
  const instance = await DuckDBInstance.create(join(dataDir, 'warehouse.duckdb'), { access_mode: 'READ_ONLY' });
  try {
    const connection = await instance.connect();
    try {
      const reader = await connection.runAndReadAll(sql);
      return reader.getRowObjectsJson() as Record<string, any>[];
    } finally {
      connection.closeSync();
    }
  } finally {
    instance.closeSync();
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
