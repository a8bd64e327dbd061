import { join } from 'node:path';

/**
 * The files beside `raw/` that stages hand to each other under `$FANLAKE_DATA_DIR`:
 *
 * ```
 * $DATA/warehouse.duckdb          the warehouse (docs/interface.md); load writes, everything after reads
 * $DATA/runs/<runId>.json         one extraction run summary; extract writes, load and status read
 * $DATA/state/<source>.json       where incremental extraction resumes; extract writes, status reads
 * ```
 */

/** The warehouse file inside the data dir, as docs/interface.md names it. */
export const WAREHOUSE_FILE = 'warehouse.duckdb';

export const RUNS_DIR = 'runs';
export const STATE_DIR = 'state';

/** `$DATA/warehouse.duckdb`. */
export function warehousePath(dataDir: string): string {
  return join(dataDir, WAREHOUSE_FILE);
}

/** `$DATA/runs`: the extraction run summaries. */
export function extractionSummariesDir(dataDir: string): string {
  return join(dataDir, RUNS_DIR);
}

/** `$DATA/runs/<runId>.json`. */
export function extractionSummaryPath(dataDir: string, runId: string): string {
  return join(extractionSummariesDir(dataDir), `${runId}.json`);
}

/** `$DATA/state/<source>.json`. */
export function sourceStatePath(dataDir: string, source: string): string {
  return join(dataDir, STATE_DIR, `${source}.json`);
}
