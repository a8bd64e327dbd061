import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import { quoteIdent, quoteLiteral } from '../core/duckdb.js';
import { selectBody } from '../models/sql-references.js';
import type { CellValue } from './format-values.js';

/** A query's result as a rendering keeps it: the Parquet and CSV files and the rows for the page. */
export interface Dataset {
  columns: { name: string; type: string }[];
  /** Up to the requested number of rows, values converted for display (see {@link CellValue}). */
  rows: Record<string, CellValue>[];
  rowCount: number;
}

/**
 * Runs one report query on the warehouse (`reader`, opened read-only) straight into a Parquet
 * file, so the page, the CSV and the Parquet file all come from the same rows. Parameters are
 * bound, never spliced.
 */
export async function queryToParquet(reader: DuckDBConnection, sql: string, params: Record<string, DuckDBValue>, parquetPath: string): Promise<void> {
  await reader.run(`copy (\n${selectBody(sql)}\n) to ${quoteLiteral(parquetPath)} (format parquet)`, params);
}

/** The first value of the first row of a query (a parameter's default), or null when it has no rows. */
export async function queryScalar(reader: DuckDBConnection, sql: string, params: Record<string, DuckDBValue>): Promise<DuckDBValue> {
  const result = await reader.runAndReadAll(`select * from (\n${selectBody(sql)}\n) limit 1`, params);
  return result.getRows()[0]?.[0] ?? null;
}

/**
 * Reads a rendering's Parquet file back on `connection` (the report engine's is the warehouse
 * reader that wrote it): writes the CSV beside it and returns the columns and up to `maxRows`
 * rows for the page.
 */
export async function readDataset(connection: DuckDBConnection, parquetPath: string, csvPath: string, maxRows: number): Promise<Dataset> {
  const source = `read_parquet(${quoteLiteral(parquetPath)})`;
  const described = (await connection.runAndReadAll(`describe select * from ${source}`)).getRowObjectsJson();
  const columns = described.map((row) => ({ name: String(row.column_name), type: String(row.column_type) }));
  const csvSelect = columns.length === 0 ? '*' : columns.map((column) => `${csvExpression(column)} as ${quoteIdent(column.name)}`).join(', ');
  await connection.run(`copy (select ${csvSelect} from ${source}) to ${quoteLiteral(csvPath)} (format csv, header true)`);
  const select = columns.length === 0 ? '*' : columns.map((column) => `${displayExpression(column)} as ${quoteIdent(column.name)}`).join(', ');
  const rows = (await connection.runAndReadAll(`select ${select} from ${source} limit ${maxRows}`)).getRowObjectsJson() as Record<string, CellValue>[];
  // fewer rows than asked for are all of them: most report queries answer with a few
  const rowCount = rows.length < maxRows ? rows.length : Number((await connection.runAndReadAll(`select count(*)::double as n from ${source}`)).getRowObjectsJson()[0]!.n);
  for (const row of rows) {
    for (const column of columns) {
      if (isInstant(column.type) && typeof row[column.name] === 'number') row[column.name] = new Date(row[column.name] as number).toISOString();
    }
  }
  return { columns, rows, rowCount };
}

/**
 * Text that a spreadsheet would run as a formula (it starts with `=`, `+`, `-`, `@`, a tab or a
 * carriage return) gets a leading `'` in the CSV, as OWASP advises: the CSV is opened in
 * Excel, and a fan's name is API data, not something the club wrote. The Parquet file keeps
 * the value exactly; numbers are not text and stay as they are.
 */
function csvExpression(column: { name: string; type: string }): string {
  const name = quoteIdent(column.name);
  if (column.type.toUpperCase() !== 'VARCHAR') return name;
  return `case when regexp_matches(${name}, '^[=+\\-@\t\r]') then '''' || ${name} else ${name} end`;
}

function isInstant(type: string): boolean {
  return type.toUpperCase().startsWith('TIMESTAMP');
}

/** Numbers as JSON numbers, instants as epoch milliseconds (made ISO above), nested values as JSON text. */
function displayExpression(column: { name: string; type: string }): string {
  const name = quoteIdent(column.name);
  const type = column.type.toUpperCase();
  if (isInstant(type)) return `epoch_ms(${name}::timestamptz)::double`;
  if (type === 'DATE') return `${name}::varchar`;
  if (/^(DECIMAL|NUMERIC|BIGINT|HUGEINT|UBIGINT|UHUGEINT|FLOAT|REAL)/.test(type)) return `${name}::double`;
  if (/^(TINYINT|SMALLINT|INTEGER|UTINYINT|USMALLINT|UINTEGER|DOUBLE|BOOLEAN|VARCHAR)$/.test(type)) return name;
  return `to_json(${name})::varchar`;
}
