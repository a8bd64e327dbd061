/**
 * The raw contract: what extract hands to load, and what fanlake keeps beside it under
 * `$FANLAKE_DATA_DIR`, as docs/interface.md documents it. Extract writes and load, status and the
 * models read these files only through this module, so the layout, the file schemas and
 * the lineage columns are stated once.
 *
 * ```
 * $DATA/raw/<source>/<resource>/run=<runId>/part-00000.parquet   raw rows + lineage columns
 * $DATA/raw/<source>/<resource>/run=<runId>/quarantine.ndjson    items that failed validation
 * $DATA/raw/<source>/<resource>/run=<runId>/_manifest.json       written last: the run is complete
 * $DATA/runs/<runId>.json                                         extraction run summary
 * $DATA/state/<source>.json                                       where incremental extraction resumes
 * $DATA/warehouse.duckdb                                          raw.<source>_<resource> and the rest
 * ```
 */
export * from './raw-layout.js';
export * from './data-dir.js';
export { differenceBaseSchema, manifestSchema, rawFileSchema, readManifest, readRunManifest, writeManifest } from './manifest.js';
export type { DifferenceBase, Manifest, RawFile } from './manifest.js';
export { EXTRACTION_STATUSES, extractionSummarySchema, listExtractionSummaries, readExtractionSummary, writeExtractionSummary } from './extraction-summary.js';
export type { ExtractionSummary, ExtractionSummaryFile } from './extraction-summary.js';
export { EXTRACTED_AT_COLUMN, isLineageColumn, LINEAGE_COLUMNS, RUN_ID_COLUMN, VANISHED_COLUMN } from './lineage.js';
export { batchSelect, type BatchFile, describeParquet, positionsFromReader } from './batch-source.js';
export { type ColumnTypes, describeDrift, planSchema, type SchemaPlan, widenType } from './schema-drift.js';
