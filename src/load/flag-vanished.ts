import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent, quoteLiteral } from '../core/duckdb.js';
import { EXTRACTED_AT_COLUMN, VANISHED_COLUMN } from '../raw-contract/index.js';
import type { Manifest } from '../raw-contract/index.js';

/**
 * A snapshot resource has no change cursor: each run reads the full set, so its table keeps
 * vanished records. Date-windowed resources (ticketing) name their cursor field.
 */
export function isSnapshotResource(manifest: Pick<Manifest, 'cursorField'>): boolean {
  return manifest.cursorField === undefined;
}

/**
 * Snapshot resources keep records that disappeared upstream, flagged with the time of the
 * first complete snapshot that lacked them; the row's `_extracted_at` stays the time it was
 * last seen. A record that comes back loses the flag. The column exists from the first load
 * of a snapshot table, partial runs included (the contract names it), so models read it
 * without guarding. Runs inside the load's transaction, after the merge: every key of the
 * snapshot then carries the snapshot's `_extracted_at`, so older rows are the vanished ones.
 */
export async function flagVanished(connection: DuckDBConnection, schema: string, table: string, manifests: readonly Manifest[]): Promise<number> {
  const sorted = [...manifests].sort((a, b) => a.extractedAt.localeCompare(b.extractedAt));
  const newest = sorted.at(-1);
  if (newest === undefined || !isSnapshotResource(newest)) return 0;
  const target = `${quoteIdent(schema)}.${quoteIdent(table)}`;
  await connection.run(`alter table ${target} add column if not exists ${VANISHED_COLUMN} timestamptz`);
  // The newest complete snapshot decides; a later run that read only some records (changed
  // ones, by key) says nothing about the others, and its rows are newer than the snapshot.
  const snapshot = sorted.filter((manifest) => manifest.snapshot).at(-1);
  if (snapshot === undefined) return 0;
  const at = `cast(${quoteLiteral(snapshot.extractedAt)} as timestamptz)`;
  await connection.run(`update ${target} set ${VANISHED_COLUMN} = null where ${VANISHED_COLUMN} is not null and ${EXTRACTED_AT_COLUMN} >= ${at}`);
  const flagged = await connection.runAndReadAll(`update ${target} set ${VANISHED_COLUMN} = ${at} where ${VANISHED_COLUMN} is null and ${EXTRACTED_AT_COLUMN} < ${at}`);
  return Number(flagged.rowsChanged);
}
