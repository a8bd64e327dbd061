import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent, quoteLiteral } from '../core/duckdb.js';
import type { Manifest } from '../extract/spool/manifest.js';

/** Set when a complete snapshot no longer had the record; NULL while it is there. */
export const VANISHED_COLUMN = '_vanished_at';

/**
 * Snapshot resources (no change cursor: each run reads the full set) keep records that
 * disappeared upstream, flagged with the time of the first complete snapshot that lacked
 * them; the row's `_extracted_at` stays the time it was last seen. A record that comes back
 * loses the flag. Runs inside the load's transaction, after the merge: every key of the
 * snapshot then carries the snapshot's `_extracted_at`, so older rows are the vanished ones.
 */
export async function flagVanished(connection: DuckDBConnection, schema: string, table: string, manifests: readonly Manifest[]): Promise<number> {
  const newest = [...manifests].sort((a, b) => a.extractedAt.localeCompare(b.extractedAt)).at(-1);
  if (!newest?.snapshot) return 0;
  const target = `${quoteIdent(schema)}.${quoteIdent(table)}`;
  const at = `cast(${quoteLiteral(newest.extractedAt)} as timestamptz)`;
  await connection.run(`alter table ${target} add column if not exists ${VANISHED_COLUMN} timestamptz`);
  await connection.run(`update ${target} set ${VANISHED_COLUMN} = null where ${VANISHED_COLUMN} is not null and _extracted_at >= ${at}`);
  const flagged = await connection.runAndReadAll(`update ${target} set ${VANISHED_COLUMN} = ${at} where ${VANISHED_COLUMN} is null and _extracted_at < ${at}`);
  return Number(flagged.rowsChanged);
}
