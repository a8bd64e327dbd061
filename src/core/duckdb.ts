import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { DuckDBValue, Json } from '@duckdb/node-api';
import { FanlakeError } from './errors.js';
import { CODE } from './error-codes.js';

/** What DuckDB may use of the machine: the settings warehouse.memoryLimit and warehouse.threads (config/duckdb-budget.ts). */
export type DuckDBBudget = Pick<DatabaseOptions, 'memoryLimit' | 'threads'>;

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
  /**
   * Memory DuckDB keeps for its blocks once it has used it, until the instance closes, instead of
   * handing it back to the system after each query (DuckDB size string; `block_allocator_memory`).
   * A process that builds large tables one after the other otherwise has the kernel fault in
   * and zero the same memory again for every query. Absent: DuckDB's default (nothing kept).
   */
  keptBlockMemory?: string;
}

export const DUCKDB_ERROR_CODES = {
  open: CODE.E_DUCKDB_OPEN,
  /** Another process kept the file past the busy wait; worth retrying later. */
  busy: CODE.E_DUCKDB_BUSY,
  nul: CODE.E_SQL_NUL,
} as const;

/** Path DuckDB reads as a private in-memory database. */
export const IN_MEMORY = ':memory:';

/** What a process does when another process has a database file open. */
export interface BusyWait {
  /** How long to keep trying; 0 fails at once. */
  timeoutSeconds: number;
  /** Told once per open that has to wait. */
  onWait?: (path: string) => void;
}

// One policy per process, set by the CLI from its settings: every stage opens databases,
// and threading the policy through each of them would add a parameter that none of them uses.
let busyWait: BusyWait = { timeoutSeconds: 0 };

/** Sets how long opens of a database file wait while another process holds it. */
export function configureBusyWait(policy: BusyWait): void {
  busyWait = policy;
}

/**
 * Opens (creating if needed) the DuckDB database at `path`. The caller owns the instance and
 * must `closeSync()` it; prefer {@link withConnection} when one connection is enough.
 *
 * DuckDB lets one process write a file, or several read it. While another process holds it
 * the open is retried with backoff for the configured busy wait: fanlake's readers keep it
 * for one statement, and its writers are one at a time (the writer lock).
 *
 * @throws FanlakeError `E_DUCKDB_BUSY` when the file stayed held past the wait, `E_DUCKDB_OPEN` otherwise.
 */
export async function openDatabase(path: string, options: DatabaseOptions = {}): Promise<DuckDBInstance> {
  const config: Record<string, string> = {};
  if (options.memoryLimit !== undefined) config.memory_limit = options.memoryLimit;
  if (options.threads !== undefined) config.threads = String(options.threads);
  if (options.accessMode !== undefined) config.access_mode = options.accessMode;
  if (options.preserveInsertionOrder !== undefined) config.preserve_insertion_order = String(options.preserveInsertionOrder);
  if (options.keptBlockMemory !== undefined) config.block_allocator_memory = options.keptBlockMemory;
  const deadline = Date.now() + busyWait.timeoutSeconds * 1000;
  let delayMs = 50;
  let told = false;
  for (;;) {
    try {
      // Loaded on first use: `fanlake extract` fetches its first pages meanwhile instead of
      // waiting for the library (DuckDB only writes parts).
      const { DuckDBInstance } = await import('./duckdb-library.js');
      return await DuckDBInstance.create(path, config);
    } catch (cause) {
      // DuckDB says so only in words; this is the one foreign message we must read.
      const busy = /Could not set lock on file/.test(String((cause as Error)?.message));
      if (busy && Date.now() < deadline) {
        if (!told) busyWait.onWait?.(path);
        told = true;
        await new Promise((resolve) => setTimeout(resolve, Math.min(delayMs, Math.max(1, deadline - Date.now()))));
        delayMs = Math.min(delayMs * 2, 1000);
        continue;
      }
      throw new FanlakeError(busy ? DUCKDB_ERROR_CODES.busy : DUCKDB_ERROR_CODES.open, busy ? `${path} stayed in use by another process for ${busyWait.timeoutSeconds} s (FANLAKE_BUSY_TIMEOUT_SECONDS)` : `cannot open DuckDB database ${path}: ${(cause as Error)?.message ?? cause}`, {
        context: { path },
        cause,
      });
    }
  }
}

/**
 * A connection to `instance` in fanlake's time zone, UTC: timestamps without a zone (and ISO
 * text without an offset) are UTC in raw and the marts, and days and months are counted in UTC,
 * whatever the machine's zone (DuckDB takes each connection's zone from the environment, so a
 * build on a server set to Europe/Oslo counted other season days than one set to UTC).
 */
export async function connect(instance: DuckDBInstance): Promise<DuckDBConnection> {
  const connection = await instance.connect();
  await connection.run(`set TimeZone = 'UTC'`);
  return connection;
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
    const connection = await connect(instance);
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

/** Runs one statement and returns its column names (known even with no rows) and JSON-safe rows. */
export async function queryColumnsAndRows(
  connection: DuckDBConnection,
  sql: string,
  params?: DuckDBValue[] | Record<string, DuckDBValue>,
): Promise<{ columns: string[]; rows: Json[][] }> {
  const reader = await connection.runAndReadAll(sql, params);
  return { columns: reader.columnNames(), rows: reader.getRowsJson() };
}

/** Rows one statement of {@link insertRows} carries at most, bound one parameter per value. */
const ROWS_PER_INSERT = 1000;

/**
 * Inserts rows: `${into} <rows>`, each row `row`'s tuple with its values as $1 to $n (casts
 * included). The rows travel as one JSON parameter, unnested into `row`'s expressions, when each
 * column's values are of one kind JSON holds exactly (text, booleans, safe integers or fractions;
 * nulls among them), typed as a parameter would have bound them; otherwise one statement per
 * thousand rows binds each value. A statement per row costs DuckDB a parse and a plan each, and
 * a statement binding thousands of parameters took 0.06-0.18 s to plan for the 266 results of a
 * check, where the JSON takes 0.005-0.02 s. `doubles`: the $n (1-based) whose values the caller
 * knows DuckDB stores as DOUBLE (a DOUBLE column, or a cast to one), where integers and fractions
 * may mix: they travel as DOUBLE, as the insert would store them anyway.
 *
 * @example
 * await insertRows(connection, 'insert into meta.t', '($1, cast($2 as timestamptz))', [['a', '2026-01-01T00:00:00Z']]);
 */
export async function insertRows(connection: DuckDBConnection, into: string, row: string, rows: readonly (readonly DuckDBValue[])[], doubles: readonly number[] = []): Promise<void> {
  if (rows.length === 0) return;
  const width = Math.max(0, ...[...row.matchAll(/\$(\d+)/g)].map((match) => Number(match[1])));
  const types = jsonColumnTypes(rows, width, new Set(doubles.map((n) => n - 1)));
  if (types !== undefined && row.startsWith('(') && row.endsWith(')')) {
    const structure = `[{${types.map((type, at) => `"c${at + 1}":"${type}"`).join(',')}}]`;
    const values = JSON.stringify(rows.map((values) => Object.fromEntries(types.map((_, at) => [`c${at + 1}`, values[at] ?? null]))));
    const select = row.slice(1, -1).replace(/\$(\d+)/g, (_, n: string) => `_fanlake_rows.c${n}`);
    await connection.run(`${into} select ${select} from (select unnest(from_json($1, ${quoteLiteral(structure)}), recursive := true)) as _fanlake_rows`, [values]);
    return;
  }
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    const chunk = rows.slice(start, start + ROWS_PER_INSERT);
    const tuples = chunk.map((_, at) => row.replace(/\$(\d+)/g, (_, n: string) => `$${at * width + Number(n)}`));
    await connection.run(`${into} values ${tuples.join(', ')}`, chunk.flat());
  }
}

/**
 * The JSON type of each of `width` columns, as DuckDB types a bound value of it (text VARCHAR,
 * an integer BIGINT, a fraction DOUBLE, a boolean BOOLEAN, nulls alone NULL), or undefined when
 * a column mixes kinds (integers and fractions among them) or holds what JSON cannot carry exactly.
 */
function jsonColumnTypes(rows: readonly (readonly DuckDBValue[])[], width: number, doubles: ReadonlySet<number>): string[] | undefined {
  const types: string[] = Array.from({ length: width }, () => 'NULL');
  for (const values of rows) {
    if (values.length !== width) return undefined;
    for (let at = 0; at < width; at++) {
      const value = values[at];
      let type: string;
      if (value === null) continue;
      if (typeof value === 'string') type = 'VARCHAR';
      else if (typeof value === 'boolean') type = 'BOOLEAN';
      else if (typeof value === 'number' && Number.isFinite(value) && doubles.has(at)) type = 'DOUBLE';
      else if (typeof value === 'number' && Number.isSafeInteger(value)) type = 'BIGINT';
      else if (typeof value === 'number' && Number.isFinite(value) && !Number.isInteger(value)) type = 'DOUBLE';
      else return undefined;
      if (types[at] !== 'NULL' && types[at] !== type) return undefined;
      types[at] = type;
    }
  }
  return types;
}

/** Runs `fn` in one transaction on `connection`: committed when it returns, rolled back when it throws. */
export async function inTransaction<T>(connection: DuckDBConnection, fn: () => Promise<T>): Promise<T> {
  await connection.run('begin transaction');
  try {
    const result = await fn();
    await connection.run('commit');
    return result;
  } catch (error) {
    await connection.run('rollback').catch(() => undefined);
    throw error;
  }
}

/** `name` as a DuckDB identifier, safe for any characters: `a"b` → `"a""b"`. */
export function quoteIdent(name: string): string {
  assertNoNul(name);
  // DuckDB's own rule (as @duckdb/node-api's quotedIdentifier), kept here so quoting needs no library load.
  return `"${name.replaceAll('"', '""')}"`;
}

/** `value` as a DuckDB string literal: `it's` → `'it''s'` (DuckDB strings have no backslash escapes). */
export function quoteLiteral(value: string): string {
  assertNoNul(value);
  return `'${value.replaceAll("'", "''")}'`;
}

// A NUL byte would end the statement early inside the C API; refuse rather than truncate.
function assertNoNul(text: string): void {
  if (text.includes('\u0000')) {
    throw new FanlakeError(DUCKDB_ERROR_CODES.nul, 'a SQL identifier or literal contains a NUL byte');
  }
}
