import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { z } from 'zod';
import { queryRows, quoteIdent, quoteLiteral } from '../core/duckdb.js';
import { errorRecordSchema } from '../core/error-record.js';
import { FanlakeError } from '../core/errors.js';
import type { Manifest } from '../extract/spool/manifest.js';
import { quarantinePath, rawTableName } from '../extract/spool/raw-layout.js';
import { META_SCHEMA } from '../warehouse/meta-schema.js';
import { VANISHED_COLUMN } from './flag-vanished.js';
import { CODE } from '../core/error-codes.js';

/** One resource's result in a run summary; only what `meta.extraction_runs` keeps. */
const resourceResultSchema = z
  .object({
    source: z.string(),
    resource: z.string(),
    status: z.string(),
    rows: z.number(),
    quarantined: z.number(),
    requests: z.number(),
    retries: z.number(),
    seconds: z.number(),
    errors: z.array(errorRecordSchema).default([]),
    notes: z.array(z.string()).optional(),
    /** Summaries written before errors were structured kept errors and notes as one list of lines. */
    messages: z.array(z.string()).optional(),
  })
  .transform(({ messages, notes, ...result }) => ({ ...result, notes: notes ?? messages ?? [] }));

/** `$DATA/runs/<run id>.json` as `extract` writes it, by this version or an earlier one. */
const runSummarySchema = z.object({
  runId: z.string().min(1),
  startedAt: z.string(),
  finishedAt: z.string(),
  results: z.array(resourceResultSchema),
});

export type RunSummary = z.infer<typeof runSummarySchema>;

/** Run summaries under `$DATA/runs` that `meta.extraction_runs` does not hold yet. */
export async function pendingRunSummaries(connection: DuckDBConnection, dataDir: string): Promise<RunSummary[]> {
  const dir = join(dataDir, 'runs');
  const files = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  const recorded = await recordedRunIds(connection);
  const pending: RunSummary[] = [];
  for (const file of files.filter((name) => name.endsWith('.json')).sort()) {
    if (recorded.has(file.slice(0, -'.json'.length))) continue;
    const path = join(dir, file);
    let parsed;
    try {
      parsed = runSummarySchema.safeParse(JSON.parse(await readFile(path, 'utf8')));
    } catch (cause) {
      throw new FanlakeError(CODE.E_RUN_SUMMARY_INVALID, `run summary ${path} is not JSON`, { context: { path }, cause });
    }
    if (!parsed.success) throw new FanlakeError(CODE.E_RUN_SUMMARY_INVALID, `run summary ${path} is not a run summary: ${parsed.error.issues[0]?.message}`, { context: { path } });
    if (!recorded.has(parsed.data.runId)) pending.push(parsed.data);
  }
  return pending;
}

/** Inserts run summaries into `meta.extraction_runs`; run it in the writer's transaction, after `ensureMetaSchema`. */
export async function recordRunSummaries(connection: DuckDBConnection, summaries: readonly RunSummary[]): Promise<void> {
  for (const summary of summaries) {
    for (const result of summary.results) {
      await connection.run(
        `insert into ${META_SCHEMA}.extraction_runs (run_id, started_at, finished_at, source, resource, status, rows, quarantined, requests, retries, seconds, messages, errors, recorded_at)
values ($1, cast($2 as timestamptz), cast($3 as timestamptz), $4, $5, $6, $7, $8, $9, $10, $11, cast($12 as json), cast($13 as json), now())`,
        [
          summary.runId, summary.startedAt, summary.finishedAt, result.source, result.resource, result.status,
          result.rows, result.quarantined, result.requests, result.retries, result.seconds, JSON.stringify(result.notes), JSON.stringify(result.errors),
        ],
      );
    }
  }
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
  for (const { source, resource } of tables.values()) {
    const { schema, table } = rawTableName(source, resource);
    const target = `${quoteIdent(schema)}.${quoteIdent(table)}`;
    const [hasVanished] = await queryRows(
      connection,
      `select count(*) as n from duckdb_columns() where database_name = current_database() and schema_name = $1 and table_name = $2 and column_name = $3`,
      [schema, table, VANISHED_COLUMN],
    );
    const vanished = Number(hasVanished!.n) > 0 ? `count(${quoteIdent(VANISHED_COLUMN)})` : '0';
    await connection.run(`delete from ${META_SCHEMA}.raw_tables where table_name = $1`, [`${schema}.${table}`]);
    await connection.run(
      `insert into ${META_SCHEMA}.raw_tables
select $1, $2, $3, count(*), ${vanished}, max(_extracted_at), arg_max(_run_id, _extracted_at), now()
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
