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
 */
export function batchSelect(files: readonly BatchFile[], target: ColumnTypes): string {
  const groups = new Map<string, BatchFile[]>();
  for (const file of files) {
    const signature = JSON.stringify([...file.columns].map(([name, type]) => [name.toLowerCase(), type]).sort());
    groups.set(signature, [...(groups.get(signature) ?? []), file]);
  }
  const selects = [...groups.values()].map((group) => {
    const present = new Map([...group[0].columns].map(([name, type]) => [name.toLowerCase(), type]));
    const list = [...target].map(([name, type]) => {
      const fileType = present.get(name.toLowerCase());
      if (fileType === undefined) return `cast(null as ${type}) as ${quoteIdent(name)}`;
      if (fileType === type) return quoteIdent(name);
      return `cast(${quoteIdent(name)} as ${type}) as ${quoteIdent(name)}`;
    });
    const paths = group.map((file) => quoteLiteral(file.path)).join(', ');
    return `select\n    ${list.join(',\n    ')}\nfrom read_parquet([${paths}], hive_partitioning = false)`;
  });
  return selects.join('\nunion all by name\n');
}
