import type { DuckDBConnection } from '@duckdb/node-api';
import { insertRows, queryRows } from '../core/duckdb.js';
import type { Manifest } from '../raw-contract/index.js';
import { bookkeepingRelation } from '../warehouse/bookkeeping.js';

/**
 * The load ledger, `meta.load_ledger` (declared in warehouse/bookkeeping.ts): one row per
 * resource-run merged into the warehouse. It lives in the warehouse itself and is written in
 * the load's transaction, so it can never disagree with the tables: a run is recorded exactly
 * when its rows are in.
 */
const LEDGER = bookkeepingRelation('load_ledger');

/** Identifies a resource-run across the ledger and the raw folders. */
export function runKey(run: { source: string; resource: string; runId: string }): string {
  return `${run.source}/${run.resource}/${run.runId}`;
}

/** Run keys (see {@link runKey}) already loaded; empty for a new warehouse. Call after `ensureBookkeeping`. */
export async function loadedRuns(connection: DuckDBConnection): Promise<Set<string>> {
  const rows = await queryRows(connection, `select source, resource, run_id from ${LEDGER}`);
  return new Set(rows.map((row) => runKey({ source: String(row.source), resource: String(row.resource), runId: String(row.run_id) })));
}

/** Records runs as loaded; call it in the same transaction as their merge. */
export async function recordLoads(connection: DuckDBConnection, manifests: readonly Manifest[]): Promise<void> {
  await insertRows(
    connection,
    `insert into ${LEDGER}`,
    '($1, $2, $3, cast($4 as timestamptz), now(), $5, $6, cast($7 as json))',
    manifests.map((manifest) => [manifest.source, manifest.resource, manifest.runId, manifest.extractedAt, manifest.rows, manifest.snapshot, JSON.stringify(manifest.files)]),
  );
}
