import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent, quoteLiteral } from '../core/duckdb.js';
import { EXTRACTED_AT_COLUMN, fromDataRelative, RUN_ID_COLUMN, VANISHED_COLUMN } from '../raw-contract/index.js';
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
 * first complete snapshot that lacked them, or of the first read by key that the source
 * answered with a 404 (the manifest's `removed`); the row's `_extracted_at` stays the time it was
 * last seen. A record that comes back loses the flag. The column exists from the first load
 * of a snapshot table, partial runs included (the contract names it), so models read it
 * without guarding. Runs inside the load's transaction, after the merge: every key of the
 * snapshot then carries the snapshot's `_extracted_at`, so older rows are the vanished ones.
 * Returns the rows newly flagged and those that came back (unflagged).
 */
export async function flagVanished(connection: DuckDBConnection, schema: string, table: string, manifests: readonly Manifest[]): Promise<{ flagged: number; unflagged: number }> {
  const sorted = [...manifests].sort((a, b) => a.extractedAt.localeCompare(b.extractedAt));
  const newest = sorted.at(-1);
  if (newest === undefined || !isSnapshotResource(newest)) return { flagged: 0, unflagged: 0 };
  const target = `${quoteIdent(schema)}.${quoteIdent(table)}`;
  await connection.run(`alter table ${target} add column if not exists ${VANISHED_COLUMN} timestamptz`);
  // The newest complete snapshot decides; a later run that read only some records (changed
  // ones, by key) says nothing about the others, and its rows are newer than the snapshot.
  const snapshot = sorted.filter((manifest) => manifest.snapshot).at(-1);
  let flagged = 0;
  let unflagged = 0;
  if (snapshot !== undefined) {
    const at = `cast(${quoteLiteral(snapshot.extractedAt)} as timestamptz)`;
    unflagged = Number((await connection.runAndReadAll(`update ${target} set ${VANISHED_COLUMN} = null where ${VANISHED_COLUMN} is not null and ${EXTRACTED_AT_COLUMN} >= ${at}`)).rowsChanged);
    flagged += Number((await connection.runAndReadAll(`update ${target} set ${VANISHED_COLUMN} = ${at} where ${VANISHED_COLUMN} is null and ${EXTRACTED_AT_COLUMN} < ${at}`)).rowsChanged);
  }
  // Runs after it that read records by key and found some gone say so for those alone.
  for (const manifest of sorted) {
    if (snapshot !== undefined && manifest.extractedAt <= snapshot.extractedAt) continue;
    flagged += await flagRemoved(connection, target, manifest);
  }
  return { flagged, unflagged };
}

/**
 * Flags the rows a read by key found gone at the source (`removed` in the manifest) vanished
 * as of that run, as a snapshot lacking them would; a row read again since keeps its place.
 */
async function flagRemoved(connection: DuckDBConnection, target: string, manifest: Manifest): Promise<number> {
  let flagged = 0;
  const at = `cast(${quoteLiteral(manifest.extractedAt)} as timestamptz)`;
  for (const key of manifest.removed ?? []) {
    const match = Object.entries(key).map(([column, value]) => `cast(${quoteIdent(column)} as varchar) = ${quoteLiteral(value)}`).join(' and ');
    const updated = await connection.runAndReadAll(`update ${target} set ${VANISHED_COLUMN} = ${at} where ${VANISHED_COLUMN} is null and ${EXTRACTED_AT_COLUMN} < ${at} and ${match}`);
    flagged += Number(updated.rowsChanged);
  }
  return flagged;
}

/**
 * A snapshot written as a difference (docs/extraction.md) brings only its new and changed
 * records; every other record it saw is named in its keys file. Those rows take the
 * snapshot's lineage, as an unchanged row re-read by a whole snapshot does in the merge, so
 * `_extracted_at` still says when a record was last seen and `flagVanished` finds them
 * present. Runs in the load's transaction, after the merge and before `flagVanished`.
 */
export async function markSeenKeys(connection: DuckDBConnection, schema: string, table: string, dataDir: string, manifests: readonly Manifest[]): Promise<number> {
  const target = `${quoteIdent(schema)}.${quoteIdent(table)}`;
  let marked = 0;
  for (const manifest of [...manifests].sort((a, b) => a.extractedAt.localeCompare(b.extractedAt))) {
    if (!manifest.keys) continue;
    const keys = manifest.primaryKey.map((key) => `${target}.${quoteIdent(key)} is not distinct from seen.${quoteIdent(key)}`).join(' and ');
    const at = `cast(${quoteLiteral(manifest.extractedAt)} as timestamptz)`;
    const updated = await connection.runAndReadAll(`
update ${target}
set ${RUN_ID_COLUMN} = ${quoteLiteral(manifest.runId)}, ${EXTRACTED_AT_COLUMN} = ${at}
from read_parquet(${quoteLiteral(fromDataRelative(dataDir, manifest.keys.path))}, hive_partitioning = false) as seen
where ${keys} and ${target}.${EXTRACTED_AT_COLUMN} < ${at}`);
    marked += Number(updated.rowsChanged);
  }
  return marked;
}
