import type { DuckDBConnection } from '@duckdb/node-api';
import { queryRows, quoteIdent, quoteLiteral } from '../core/duckdb.js';
import type { ColumnTypes } from './schema-drift.js';

/** A Parquet file about to be loaded, with the column types its footer declares. */
export interface BatchFile {
  path: string;
  columns: ColumnTypes;
}

/** Reads a Parquet file's column names and types (footer only, no data). */
export async function describeParquet(connection: DuckDBConnection, path: string): Promise<Map<string, string>> {
  const rows = await queryRows(connection, `describe select * from read_parquet(${quoteLiteral(path)}, hive_partitioning = false)`);
  return new Map(rows.map((row) => [String(row.column_name), String(row.column_type)]));
}

/**
 * A query over exactly the new files that yields the table's `target` columns: each file's
 * columns cast to the table's types, NULL for columns a file lacks. Files with the same
 * schema are read by one `read_parquet`; different schemas are combined with
 * `union all by name`. Casting per schema, rather than trusting `union_by_name` to unify
 * types, keeps a file whose JSON column became VARCHAR loadable (DuckDB would cast to JSON and fail).
 * Hive partitioning is off because the `run=<id>` folder would otherwise become a `run` column.
 *
 * `position`, when named, is one more column: each row's place in the batch, unique and in the
 * order of `files` and of the rows in each, made of the reader's file index and row number
 * (numbering the rows with `row_number() over ()` cost more than reading them).
 * Files whose own columns bear those names are numbered by `row_number()` instead.
 */
export function batchSelect(files: readonly BatchFile[], target: ColumnTypes, position?: string): string {
  const groups = new Map<string, BatchFile[]>();
  for (const file of files) {
    const signature = JSON.stringify([...file.columns].map(([name, type]) => [name.toLowerCase(), type]).sort());
    groups.set(signature, [...(groups.get(signature) ?? []), file]);
  }
  const numberedByReader = position !== undefined && positionsFromReader(files);
  const selects = [...groups.values()].map((group, groupIndex) => {
    const present = new Map([...group[0].columns].map(([name, type]) => [name.toLowerCase(), type]));
    const list = [...target].map(([name, type]) => {
      const fileType = present.get(name.toLowerCase());
      if (fileType === undefined) return `cast(null as ${type}) as ${quoteIdent(name)}`;
      if (fileType === type) return quoteIdent(name);
      return `cast(${quoteIdent(name)} as ${type}) as ${quoteIdent(name)}`;
    });
    if (position !== undefined && numberedByReader) list.push(`(${groupIndex}::bigint << 48) + (file_index::bigint << 32) + file_row_number as ${quoteIdent(position)}`);
    const paths = group.map((file) => quoteLiteral(file.path)).join(', ');
    return `select\n    ${list.join(',\n    ')}\nfrom read_parquet([${paths}], hive_partitioning = false${numberedByReader ? ', file_row_number = true' : ''})`;
  });
  const batch = selects.join('\nunion all by name\n');
  if (position === undefined || numberedByReader) return batch;
  return `select *, row_number() over () as ${quoteIdent(position)}\nfrom (\n${batch}\n)`;
}

/**
 * Whether `batchSelect` numbers these files' rows from the reader (file index and row number),
 * the same on every read, rather than by `row_number()`, which is only as stable as the order
 * rows arrive in.
 */
export function positionsFromReader(files: readonly BatchFile[]): boolean {
  return !files.some((file) => [...file.columns.keys()].some((name) => READER_COLUMNS.includes(name.toLowerCase())));
}

/** Columns the Parquet reader adds on request (`file_row_number`) or always offers (`file_index`). */
const READER_COLUMNS = ['file_index', 'file_row_number'];
