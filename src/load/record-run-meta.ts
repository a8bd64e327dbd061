import type { DuckDBConnection } from '@duckdb/node-api';
import { insertRows, queryRows, quoteIdent, quoteLiteral } from '../core/duckdb.js';
import { EXTRACTED_AT_COLUMN, listExtractionSummaries, quarantinePath, rawTableName, readExtractionSummary, RUN_ID_COLUMN, VANISHED_COLUMN } from '../raw-contract/index.js';
import type { ExtractionSummary, Manifest } from '../raw-contract/index.js';
import { META_SCHEMA } from '../warehouse/meta-schema.js';

/** Run summaries under `$DATA/runs` that `meta.extraction_runs` does not hold yet. */
export async function pendingRunSummaries(connection: DuckDBConnection, dataDir: string): Promise<ExtractionSummary[]> {
  const files = await listExtractionSummaries(dataDir);
  const recorded = await recordedRunIds(connection);
  const pending: ExtractionSummary[] = [];
  for (const file of files) {
    if (recorded.has(file.runId)) continue;
    const summary = await readExtractionSummary(file.path);
    if (!recorded.has(summary.runId)) pending.push(summary);
  }
  return pending;
}

/** Inserts run summaries into `meta.extraction_runs`; run it in the writer's transaction, after `ensureMetaSchema`. */
export async function recordRunSummaries(connection: DuckDBConnection, summaries: readonly ExtractionSummary[]): Promise<void> {
  await insertRows(
    connection,
    `insert into ${META_SCHEMA}.extraction_runs (run_id, started_at, finished_at, source, resource, status, rows, quarantined, requests, retries, seconds, messages, errors, recorded_at)`,
    '($1, cast($2 as timestamptz), cast($3 as timestamptz), $4, $5, $6, $7, $8, $9, $10, $11, cast($12 as json), cast($13 as json), now())',
    summaries.flatMap((summary) =>
      summary.results.map((result) => [
        summary.runId, summary.startedAt, summary.finishedAt, result.source, result.resource, result.status,
        result.rows, result.quarantined, result.requests, result.retries, result.seconds, JSON.stringify(result.notes), JSON.stringify(result.errors),
      ]),
    ),
  );
}

/** Copies each loaded run's `quarantine.ndjson` into `meta.quarantined_records`. */
export async function recordQuarantine(connection: DuckDBConnection, dataDir: string, manifests: readonly Manifest[]): Promise<number> {
  let count = 0;
  for (const manifest of manifests) {
    if (manifest.quarantined === 0) continue;
    const path = quarantinePath(dataDir, manifest);
    const reader = await connection.runAndReadAll(
      `insert into ${META_SCHEMA}.quarantined_records
select $1, $2, $3, coalesce(reason, 'unknown'), item, now()
from read_json(${quoteLiteral(path)}, format = 'newline_delimited', columns = {reason: 'varchar', item: 'json'})`,
      [manifest.runId, manifest.source, manifest.resource],
    );
    count += Number(reader.rowsChanged);
  }
  return count;
}

/** Refreshes `meta.raw_tables` for the tables a load changed: rows, vanished records, newest data. */
export async function recordRawTables(connection: DuckDBConnection, manifests: readonly Manifest[]): Promise<void> {
  const tables = new Map(manifests.map((manifest) => [`${manifest.source}/${manifest.resource}`, manifest]));
  const withVanished = new Set(
    (await queryRows(connection, `select schema_name || '.' || table_name as relation from duckdb_columns() where database_name = current_database() and column_name = $1`, [VANISHED_COLUMN])).map((row) =>
      String(row.relation),
    ),
  );
  for (const { source, resource } of tables.values()) {
    const { schema, table } = rawTableName(source, resource);
    const target = `${quoteIdent(schema)}.${quoteIdent(table)}`;
    const vanished = withVanished.has(`${schema}.${table}`) ? `count(${quoteIdent(VANISHED_COLUMN)})` : '0';
    await connection.run(`delete from ${META_SCHEMA}.raw_tables where table_name = $1`, [`${schema}.${table}`]);
    await connection.run(
      `insert into ${META_SCHEMA}.raw_tables
select $1, $2, $3, count(*), ${vanished}, max(${EXTRACTED_AT_COLUMN}), arg_max(${RUN_ID_COLUMN}, ${EXTRACTED_AT_COLUMN}), now()
from ${target}`,
      [`${schema}.${table}`, source, resource],
    );
  }
}

async function recordedRunIds(connection: DuckDBConnection): Promise<Set<string>> {
  const [exists] = await queryRows(
    connection,
    `select count(*) as n from duckdb_tables() where database_name = current_database() and schema_name = $1 and table_name = 'extraction_runs'`,
    [META_SCHEMA],
  );
  if (Number(exists!.n) === 0) return new Set();
  const rows = await queryRows(connection, `select distinct run_id from ${META_SCHEMA}.extraction_runs`);
  return new Set(rows.map((row) => String(row.run_id)));
}
