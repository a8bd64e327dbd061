import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { withConnection } from '../core/duckdb.js';
import { UsageError } from '../core/errors.js';

export const WAREHOUSE_FILE = 'warehouse.duckdb';

export function warehousePath(dataDir: string): string {
  return join(dataDir, WAREHOUSE_FILE);
}

/**
 * Opens the warehouse for reading and runs `fn`: read-only, so several readers can share
 * the file at once and a query can never change data by accident.
 */
export async function withWarehouseReader<T>(dataDir: string, fn: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
  const path = warehousePath(dataDir);
  if (!existsSync(path)) throw new UsageError(`no warehouse at ${path} yet: run fanlake extract and fanlake load first`);
  return withConnection(path, fn, { accessMode: 'READ_ONLY', memoryLimit: '2GB' });
}
