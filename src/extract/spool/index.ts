/** Public surface of the spool: records in, Parquet parts out (the manifest is the raw contract's, see src/raw-contract). */
export { ParquetSpool, DEFAULT_ROWS_PER_FILE, UNDECLARED_COLUMN_TYPE, KeptConversionDatabase } from './parquet-spool.js';
export type { ParquetSpoolOptions, SpoolResult } from './parquet-spool.js';
