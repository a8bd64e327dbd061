import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

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
