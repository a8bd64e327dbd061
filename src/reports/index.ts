/**
 * The reports stage: `fanlake report` renders report files from `reports/` into
 * self-contained pages (inline CSS and SVG, no script, no network), one CSV and Parquet file
 * per query shown, and a Markdown digest. The file format is described in docs/reports.md;
 * `report-definition.ts` holds its schema.
 */
export { DEFAULT_KEEP, renderReports } from './render-reports.js';
export type { RenderOptions, ReportResult } from './render-reports.js';
export { DEFAULT_REPORTS_DIR, loadReportCatalog } from './report-catalog.js';
export type { CheckedReport, ReportCatalog } from './report-catalog.js';
export { CHART_TYPES, PARAM_TYPES, VALUE_FORMATS } from './report-definition.js';
export type { ParamDefinition, ReportDefinition } from './report-definition.js';
export { parseParamArgs } from './report-params.js';
export { INDEX_FILE } from './render-index.js';
export { LATEST } from './renderings.js';
