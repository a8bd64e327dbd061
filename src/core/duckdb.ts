import { DuckDBConnection, DuckDBInstance, quotedIdentifier, quotedString } from '@duckdb/node-api';
import type { DuckDBValue, Json } from '@duckdb/node-api';
import { FanlakeError } from './errors.js';

/** How much of the machine one DuckDB instance may take; the host is shared. */
export interface DatabaseOptions {
  /** DuckDB size string such as `'256MB'` or `'1GB'`; DuckDB's default (80% of RAM) when absent. */
  memoryLimit?: string;
  /** Worker threads; DuckDB's default (all cores) when absent. */
  threads?: number;
  /** READ_ONLY lets other processes read while one writes elsewhere, and forbids changes. */
  accessMode?: 'READ_ONLY' | 'READ_WRITE';
  /** False lets DuckDB stream without keeping row order, which saves memory when order is irrelevant. */
  preserveInsertionOrder?: boolean;
}

/** Path DuckDB reads as a private in-memory database. */
export const IN_MEMORY = ':memory:';

/**
 * Opens (creating if needed) the DuckDB database at `path`. The caller owns the instance and
 * must `closeSync()` it; prefer {@link withConnection} when one connection is enough.
 *
 * @throws FanlakeError `E_DUCKDB_OPEN` (retryable: another process may hold the file lock).
 */
export async function openDatabase(path: string, options: DatabaseOptions = {}): Promise<DuckDBInstance> {
  const config: Record<string, string> = {};
  if (options.memoryLimit !== undefined) config.memory_limit = options.memoryLimit;
  if (options.threads !== undefined) config.threads = String(options.threads);
  if (options.accessMode !== undefined) config.access_mode = options.accessMode;
  if (options.preserveInsertionOrder !== undefined) config.preserve_insertion_order = String(options.preserveInsertionOrder);
  try {
    return await DuckDBInstance.create(path, config);
  } catch (cause) {
    throw new FanlakeError('E_DUCKDB_OPEN', `cannot open DuckDB database ${path}`, {
      retryable: true,
      context: { path },
      cause,
    });
  }
}

/**
 * Runs `fn` with a fresh connection and always closes what it opened, even when `fn` throws.
 * Given a path it opens and closes the database too; given an instance it leaves the instance open.
 *
 * @example
 * const count = await withConnection(':memory:', async (connection) => (await queryRows(connection, 'select 1 as n'))[0].n);
 */
export async function withConnection<T>(
  target: string | DuckDBInstance,
  fn: (connection: DuckDBConnection) => Promise<T>,
  options: DatabaseOptions = {},
): Promise<T> {
  const owned = typeof target === 'string';
  const instance = owned ? await openDatabase(target, options) : target;
  try {
    const connection = await instance.connect();
    try {
      return await fn(connection);
    } finally {
      connection.closeSync();
    }
  } finally {
    if (owned) instance.closeSync();
  }
}

/** Runs one statement and returns its rows as JSON-safe objects (BIGINTs come back as strings). */
export async function queryRows(
  connection: DuckDBConnection,
  sql: string,
  params?: DuckDBValue[] | Record<string, DuckDBValue>,
): Promise<Record<string, Json>[]> {
  const reader = await connection.runAndReadAll(sql, params);
  return reader.getRowObjectsJson();
}

/** `name` as a DuckDB identifier, safe for any characters: `a"b` → `"a""b"`. */
export function quoteIdent(name: string): string {
  assertNoNul(name);
  return quotedIdentifier(name);
}

/** `value` as a DuckDB string literal: `it's` → `'it''s'` (DuckDB strings have no backslash escapes). */
export function quoteLiteral(value: string): string {
  assertNoNul(value);
  return quotedString(value);
}

// A NUL byte would end the statement early inside the C API; refuse rather than truncate.
function assertNoNul(text: string): void {
  if (text.includes('\u0000')) {
    throw new FanlakeError('E_SQL_NUL', 'a SQL identifier or literal contains a NUL byte');
  }
}
