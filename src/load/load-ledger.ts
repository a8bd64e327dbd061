import type { DuckDBConnection } from '@duckdb/node-api';
import { queryRows, quoteIdent } from '../core/duckdb.js';
import { RAW_SCHEMA } from '../raw-contract/index.js';
import type { Manifest } from '../raw-contract/index.js';

/**
 * `raw._fanlake_loads`: one row per resource-run merged into the warehouse. It lives in the
 * warehouse itself and is written in the load's transaction, so it can never disagree with
 * the tables: a run is recorded exactly when its rows are in.
 */
export const LEDGER_TABLE = '_fanlake_loads';

const LEDGER = `${quoteIdent(RAW_SCHEMA)}.${quoteIdent(LEDGER_TABLE)}`;

/** Identifies a resource-run across the ledger and the raw folders. */
export function runKey(run: { source: string; resource: string; runId: string }): string {
  return `${run.source}/${run.resource}/${run.runId}`;
}

/** Creates schema `raw` and the ledger when missing; run it inside the load's transaction. */
export async function ensureLedger(connection: DuckDBConnection): Promise<void> {
  await connection.run(`create schema if not exists ${quoteIdent(RAW_SCHEMA)}`);
  await connection.run(`
create table if not exists ${LEDGER} (
    source varchar not null,
    resource varchar not null,
    run_id varchar not null,
    extracted_at timestamptz not null,
    loaded_at timestamptz not null,
    rows bigint not null,
    is_snapshot boolean not null,
    files json not null
)`);
}

/** Run keys (see {@link runKey}) already loaded; empty for a new warehouse. */
export async function loadedRuns(connection: DuckDBConnection): Promise<Set<string>> {
  const [exists] = await queryRows(
    connection,
    `select count(*) as n from duckdb_tables() where database_name = current_database() and schema_name = $1 and table_name = $2`,
    [RAW_SCHEMA, LEDGER_TABLE],
  );
  if (Number(exists.n) === 0) return new Set();
  const rows = await queryRows(connection, `select source, resource, run_id from ${LEDGER}`);
  return new Set(rows.map((row) => runKey({ source: String(row.source), resource: String(row.resource), runId: String(row.run_id) })));
}

/** Records runs as loaded; call it in the same transaction as their merge. */
export async function recordLoads(connection: DuckDBConnection, manifests: readonly Manifest[]): Promise<void> {
  for (const manifest of manifests) {
    await connection.run(
      `insert into ${LEDGER} values ($1, $2, $3, cast($4 as timestamptz), now(), $5, $6, cast($7 as json))`,
      [
        manifest.source,
        manifest.resource,
        manifest.runId,
        manifest.extractedAt,
        manifest.rows,
        manifest.snapshot,
        JSON.stringify(manifest.files),
      ],
    );
  }
}
