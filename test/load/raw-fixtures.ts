import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { queryRows, withConnection } from '../../src/core/duckdb.js';
import { ParquetSpool } from '../../src/extract/spool/parquet-spool.js';
import { newRunId, writeManifest } from '../../src/raw-contract/index.js';
import type { Manifest } from '../../src/raw-contract/index.js';

export interface RunFixture {
  source?: string;
  resource: string;
  extractedAt: string;
  columns: Record<string, string>;
  primaryKey: string[];
  cursorField?: string;
  /** A complete snapshot (no cursor): the load flags the keys it lacks as vanished. */
  snapshot?: boolean;
  /** Pages of records; a generator keeps large runs out of memory. */
  pages: Iterable<Record<string, unknown>[]>;
  rowsPerFile?: number;
}

export function tempDataDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'fanlake-load-'));
}

/** Writes a complete resource-run through the real spool and manifest writer. */
export async function writeRun(dataDir: string, fixture: RunFixture): Promise<Manifest> {
  const source = fixture.source ?? 'ticketing';
  const runId = newRunId(new Date(fixture.extractedAt));
  const spool = new ParquetSpool({
    dataDir,
    source,
    resource: fixture.resource,
    runId,
    extractedAt: fixture.extractedAt,
    columns: fixture.columns,
    rowsPerFile: fixture.rowsPerFile,
  });
  for (const page of fixture.pages) await spool.append(page);
  const result = await spool.finish();
  const manifest: Manifest = {
    version: 1,
    source,
    resource: fixture.resource,
    runId,
    startedAt: fixture.extractedAt,
    finishedAt: fixture.extractedAt,
    extractedAt: fixture.extractedAt,
    primaryKey: fixture.primaryKey,
    cursorField: fixture.cursorField,
    snapshot: fixture.snapshot ?? false,
    columns: result.columns,
    files: result.files,
    rows: result.rows,
    quarantined: result.quarantined,
  };
  await writeManifest(dataDir, manifest);
  return manifest;
}

export async function warehouseRows(path: string, sql: string) {
  return withConnection(path, (connection) => queryRows(connection, sql));
}

/**
 * Everything a load could change, as comparable JSON: every table of schema `raw` (rows
 * counted and hashed, so large tables compare cheaply) and its column types.
 */
export async function warehouseState(path: string): Promise<Record<string, unknown>> {
  return withConnection(path, async (connection) => {
    const tables = await queryRows(
      connection,
      `select table_name from duckdb_tables() where schema_name = 'raw' order by table_name`,
    );
    const state: Record<string, unknown> = {};
    for (const { table_name: table } of tables) {
      const [summary] = await queryRows(
        connection,
        `select count(*) as n, sum(hash(row_value)) as h from (select tbl as row_value from raw."${table}" as tbl)`,
      );
      const columns = await queryRows(
        connection,
        `select column_name, data_type from duckdb_columns() where schema_name = 'raw' and table_name = '${table}' order by column_index`,
      );
      state[String(table)] = { ...summary, columns };
    }
    return state;
  });
}
