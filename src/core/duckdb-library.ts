// DuckDB's library in a module of its own, for core/duckdb.ts to import on first use: the CLI
// bundles it (scripts/build.mjs), and a dynamic import of the bundled CommonJS package
// itself would see only a default export.
export { DuckDBInstance } from '@duckdb/node-api';
