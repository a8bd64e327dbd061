import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent, quoteLiteral } from '../../core/duckdb.js';
import { FanlakeError, errorMessage } from '../../core/errors.js';
import { EXTRACTED_AT_COLUMN, RUN_ID_COLUMN } from '../../raw-contract/index.js';
import { CODE } from '../../core/error-codes.js';

// read_json's own default; raised per file when a larger record was spooled.
const DEFAULT_MAXIMUM_OBJECT_SIZE = 16 * 1024 * 1024;

// Parquet is written without dictionary pages: DuckDB then needs about half the memory and
// less CPU to write wide ticket rows, for files somewhat larger (zstd still finds the repeated
// strings) that read as fast. The memory is what a DuckDB kept for the run holds on to.

/** One spool file to turn into one Parquet file. */
export interface SpoolConversion {
  /** Records as JSON lines, one a line (see json-lines.ts). */
  spoolPath: string;
  /** Where the Parquet file is written (a `.tmp` name; the caller renames it). */
  parquetPath: string;
  /** Column name → DuckDB type, in output order. Keys of a record not listed here are dropped by DuckDB. */
  columns: ReadonlyArray<readonly [string, string]>;
  runId: string;
  extractedAt: string;
  /** An upper bound of the largest record's size in bytes. */
  largestRecordBytes: number;
  rowGroupSize: number;
}

/**
 * Converts one spool file into one Parquet file with DuckDB and returns the rows written.
 * DuckDB reads the lines one by one, so the file's size does not matter. Types come from `columns`, never inferred, so a file whose values are all NULL
 * keeps the declared types, and strings are never converted to numbers or dates.
 */
export async function convertSpoolToParquet(connection: DuckDBConnection, job: SpoolConversion): Promise<number> {
  const struct = job.columns.map(([name, type]) => `${quoteLiteral(name)}: ${quoteLiteral(type)}`).join(', ');
  const selectList = [
    ...job.columns.map(([name]) => quoteIdent(name)),
    `${quoteLiteral(job.runId)} as ${RUN_ID_COLUMN}`,
    `cast(${quoteLiteral(job.extractedAt)} as timestamptz) as ${EXTRACTED_AT_COLUMN}`,
  ].join(',\n        ');
  const maximumObjectSize = Math.max(DEFAULT_MAXIMUM_OBJECT_SIZE, job.largestRecordBytes + 1024);
  const sql = `
copy (
    select
        ${selectList}
    from read_json(
        ${quoteLiteral(job.spoolPath)},
        format = 'newline_delimited',
        records = true,
        auto_detect = false,
        convert_strings_to_integers = false,
        maximum_object_size = ${maximumObjectSize},
        columns = {${struct}}
    )
) to ${quoteLiteral(job.parquetPath)} (format parquet, compression zstd, row_group_size ${job.rowGroupSize}, dictionary_size_limit 0)`;
  try {
    const result = await connection.run(sql);
    return result.rowsChanged;
  } catch (cause) {
    throw new FanlakeError(CODE.E_SPOOL_CONVERT, `cannot convert spool ${job.spoolPath} to Parquet: ${errorMessage(cause)}`, {
      context: { path: job.spoolPath },
      cause,
    });
  }
}
