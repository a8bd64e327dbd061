import type { DuckDBConnection } from '@duckdb/node-api';
import { insertRows, queryRows } from '../core/duckdb.js';
import type { Manifest } from '../raw-contract/index.js';
import { bookkeepingRelation } from '../warehouse/bookkeeping.js';
import type { SkippedDifference } from './difference-bases.js';

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

const SKIPPED = bookkeepingRelation('skipped_runs');

/**
 * Run keys (see {@link runKey}) already accounted for: loaded, or skipped for good (a
 * difference onto another base); empty for a new warehouse. Call after `ensureBookkeeping`.
 */
export async function loadedRuns(connection: DuckDBConnection): Promise<Set<string>> {
  const rows = await queryRows(connection, `select source, resource, run_id from ${LEDGER} union all select source, resource, run_id from ${SKIPPED}`);
  return new Set(rows.map((row) => runKey({ source: String(row.source), resource: String(row.resource), runId: String(row.run_id) })));
}

/** Records differences the load passed over for good, with why; call it in the load's transaction. */
export async function recordSkips(connection: DuckDBConnection, skipped: readonly SkippedDifference[]): Promise<void> {
  await insertRows(
    connection,
    `insert into ${SKIPPED}`,
    '($1, $2, $3, cast($4 as timestamptz), now(), $5, $6)',
    skipped.map(({ manifest, warning }) => [manifest.source, manifest.resource, manifest.runId, manifest.extractedAt, warning.code, warning.message]),
  );
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
