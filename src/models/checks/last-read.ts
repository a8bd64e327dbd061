import type { DuckDBConnection } from '@duckdb/node-api';
import { queryRows } from '../../core/duckdb.js';
import { EXTRACTED_AT_COLUMN } from '../../raw-contract/index.js';
import { findBookkeeping } from '../../warehouse/bookkeeping.js';
import { META_SCHEMA } from '../../warehouse/meta-schema.js';
import { existingRelations } from '../../warehouse/warehouse.js';

/**
 * When fanlake last read a raw table from its source in full: the newest run of its resource
 * that is in the load ledger and whose extraction ended `ok` (`meta.extraction_runs`; a partial
 * run, a window failed or kept changing, does not count). Such a run counts when it brought no
 * new rows (an incremental window in which nothing changed), so a table whose records stay the
 * same for days is still known fresh. Undefined for a relation that is not raw, a field other
 * than `_extracted_at` (a business signal keeps its own meaning) or no such run.
 */
export async function lastReadEpoch(connection: DuckDBConnection, relation: string, field: string): Promise<number | undefined> {
  const [schema, table] = relation.split('.');
  if (schema?.toLowerCase() !== 'raw' || table === undefined || field !== EXTRACTED_AT_COLUMN) return undefined;
  const ledger = await findBookkeeping(connection, 'load_ledger');
  if (ledger === undefined || !(await existingRelations(connection)).has(`${META_SCHEMA}.extraction_runs`)) return undefined;
  // raw-layout names a resource's table `<source>_<resource>`.
  const [row] = await queryRows(
    connection,
    `select epoch(max(ledger.extracted_at)) as at
from ${ledger} as ledger
join ${META_SCHEMA}.extraction_runs as runs using (run_id, source, resource)
where runs.status = 'ok' and lower(ledger.source || '_' || ledger.resource) = lower($1)`,
    [table],
  );
  return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
}
