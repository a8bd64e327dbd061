/** Which extraction run wrote the row's current version. */
export const RUN_ID_COLUMN = '_run_id';

/** When that run started: the manifest's `extractedAt`, the same for every row of a resource-run. */
export const EXTRACTED_AT_COLUMN = '_extracted_at';

/**
 * Lineage columns every raw row carries, in the Parquet parts and in `raw.<source>_<resource>`,
 * with their DuckDB types. No API field may use these names (DuckDB names ignore case).
 */
export const LINEAGE_COLUMNS = { [RUN_ID_COLUMN]: 'VARCHAR', [EXTRACTED_AT_COLUMN]: 'TIMESTAMPTZ' } as const;

/**
 * Snapshot tables only (resources without a cursor field): set when a complete snapshot no
 * longer had the record, NULL while it is there. The loader adds it; raw files never carry it.
 */
export const VANISHED_COLUMN = '_vanished_at';

/** True for a lineage column name in any case: such a name is fanlake's, not the API's. */
export function isLineageColumn(name: string): boolean {
  return name.toLowerCase() in LINEAGE_COLUMNS;
}
