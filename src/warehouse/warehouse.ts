import { existsSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { type DuckDBBudget, queryColumnsAndRows, queryRows, withConnection } from '../core/duckdb.js';
import { errorMessage, FanlakeError } from '../core/errors.js';
import { warehousePath } from '../raw-contract/index.js';
import { CODE } from '../core/error-codes.js';

export const WAREHOUSE_ERROR_CODES = {
  /** Nothing loaded yet: a state of the data directory, not bad usage. */
  missing: CODE.E_WAREHOUSE_MISSING,
  /** A well-formed statement DuckDB rejected: a failed run (exit 1), not bad usage. */
  queryFailed: CODE.E_SQL_QUERY,
} as const;

/**
 * Opens the warehouse read-only, runs `fn` and closes it again. Read-only so a query can never
 * change data by accident; closed right after so that a reader keeps a writer (load, build)
 * out for no longer: `sql` and `shell` run one statement per call and keep no connection,
 * a report rendering (under the writer lock) all of its queries.
 * `budget`: the settings' (config/duckdb-budget.ts); DuckDB's own defaults without it.
 */
export async function withWarehouseReader<T>(dataDir: string, fn: (connection: DuckDBConnection) => Promise<T>, budget: DuckDBBudget = {}): Promise<T> {
  const path = warehousePath(dataDir);
  if (!existsSync(path)) {
    throw new FanlakeError(WAREHOUSE_ERROR_CODES.missing, `no warehouse at ${path} yet: run fanlake extract and fanlake load first`, { context: { path } });
  }
  return withConnection(path, fn, { ...budget, accessMode: 'READ_ONLY' });
}

/**
 * Runs one statement on a warehouse opened read-only for it alone. `onRunning` is handed the
 * connection once the statement has begun (and `undefined` after it ended), so the shell can
 * interrupt it.
 *
 * @throws FanlakeError `E_SQL_QUERY` when DuckDB rejects the statement.
 */
export function runReadOnlyStatement(dataDir: string, sql: string, budget: DuckDBBudget, onRunning?: (connection: DuckDBConnection | undefined) => void) {
  return withWarehouseReader(dataDir, async (connection) => {
    try {
      if (onRunning === undefined) return await queryColumnsAndRows(connection, sql);
      // Handed out once the statement is pending, not before: DuckDB forgets an interrupt
      // that comes before a statement begins, and a Ctrl-C then did nothing.
      const pending = await connection.start(sql);
      onRunning(connection);
      const reader = await pending.readAll();
      return { columns: reader.columnNames(), rows: reader.getRowsJson() };
    } catch (error) {
      throw new FanlakeError(WAREHOUSE_ERROR_CODES.queryFailed, errorMessage(error), { cause: error });
    } finally {
      onRunning?.(undefined);
    }
  }, budget);
}

/** The tables and views of the warehouse, as `schema.name` in lower case (the catalog only, no data). */
export async function existingRelations(connection: DuckDBConnection): Promise<Set<string>> {
  return new Set((await relationKinds(connection)).keys());
}

export type RelationKind = 'table' | 'view';

/**
 * A table's columns and their types, in column order; undefined when there is no such table.
 * `database`: the name the warehouse is attached under, when it is not the connection's own.
 */
export async function tableColumns(connection: DuckDBConnection, schema: string, table: string, database?: string): Promise<Map<string, string> | undefined> {
  const rows = await queryRows(
    connection,
    `select column_name, data_type from duckdb_columns() where database_name = coalesce($3, current_database()) and schema_name = $1 and table_name = $2 order by column_index`,
    [schema, table, database ?? null],
  );
  return rows.length === 0 ? undefined : new Map(rows.map((row) => [String(row.column_name), String(row.data_type)]));
}

/** The columns of every table and view (of one schema, when given), by `schema.name` in lower case, in column order: one look at the catalog for them all. */
export async function columnsByRelation(connection: DuckDBConnection, schema?: string): Promise<Map<string, { name: string; type: string }[]>> {
  const rows = await queryRows(
    connection,
    `select lower(schema_name || '.' || table_name) as relation, column_name, data_type from duckdb_columns()
     where database_name = current_database() and ($1::varchar is null or schema_name = $1) order by column_index`,
    [schema ?? null],
  );
  const columns = new Map<string, { name: string; type: string }[]>();
  for (const row of rows) {
    const relation = String(row.relation);
    if (!columns.has(relation)) columns.set(relation, []);
    columns.get(relation)!.push({ name: String(row.column_name), type: String(row.data_type) });
  }
  return columns;
}

/** Each table and view of the warehouse, by `schema.name` in lower case, and which it is. */
export async function relationKinds(connection: DuckDBConnection): Promise<Map<string, RelationKind>> {
  const rows = await queryRows(
    connection,
    `select lower(schema_name || '.' || table_name) as relation, 'table' as kind from duckdb_tables() where database_name = current_database()
     union all
     select lower(schema_name || '.' || view_name), 'view' from duckdb_views() where database_name = current_database() and not internal`,
  );
  return new Map(rows.map((row) => [String(row.relation), row.kind === 'view' ? 'view' : 'table']));
}
