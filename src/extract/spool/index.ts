/** Public surface of the spool: records in, Parquet parts and a manifest out. */
export { ParquetSpool, DEFAULT_ROWS_PER_FILE, UNDECLARED_COLUMN_TYPE } from './parquet-spool.js';
export type { ParquetSpoolOptions, SpoolResult } from './parquet-spool.js';
export { manifestSchema, rawFileSchema, readManifest, writeManifest } from './manifest.js';
export type { Manifest, RawFile } from './manifest.js';
export { LINEAGE_COLUMNS } from './ndjson-to-parquet.js';
export * from './raw-layout.js';
