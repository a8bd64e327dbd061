import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { type DuckDBBudget, queryRows, quoteIdent, quoteLiteral, withConnection } from '../core/duckdb.js';
import { discoverRuns } from '../load/discover-runs.js';
import { loadedRuns, runKey } from '../load/load-ledger.js';
import { warehousePath } from '../raw-contract/index.js';
import { rawTables } from '../sources/raw-personal-columns.js';
import { ensureBookkeeping } from '../warehouse/bookkeeping.js';
import { eraseFromRawRuns, type RowCondition } from './erase-raw-runs.js';
import { personCondition } from './person-records.js';
import { hasTombstones, keyedHasher, readTombstones, type Tombstones, tombstonedSelection } from './tombstones.js';

/** Records of forgotten people a source still sent, dropped from runs not loaded yet. */
export interface TombstonedDrop {
  /** Rows dropped, by `source/resource`. */
  readonly byResource: ReadonlyMap<string, number>;
  readonly rows: number;
}

/**
 * The condition a raw row of a resource meets when tombstones forbid it: its person keys name a
 * forgotten record, or an e-mail address whose keyed hash is a tombstone's (the addresses of
 * the file are read and hashed, since the tombstones hold no address).
 */
export function tombstoneCondition(connection: DuckDBConnection, tombstones: Tombstones, hash: (value: string) => string): RowCondition {
  return async (manifest, columns, path) => {
    const table = rawTables().find(({ source, spec }) => source === manifest.source && spec.name === manifest.resource);
    if (table === undefined) return undefined;
    const emailKeys = (table.spec.personKeys ?? []).filter((key) => key.refersTo === 'email' && columns.includes(key.field));
    const candidates: string[] = [];
    if (emailKeys.length > 0 && tombstones.emailHashes.length > 0) {
      const values = emailKeys.map((key) => `select lower(trim(cast(${quoteIdent(key.field)} as varchar))) as email from read_parquet(${quoteLiteral(path)}, hive_partitioning = false)`);
      for (const row of await queryRows(connection, `select distinct email from (${values.join(' union all ')}) where email is not null`)) candidates.push(String(row.email));
    }
    return personCondition(table.spec.personKeys, columns, tombstonedSelection(tombstones, hash, candidates));
  };
}

/**
 * Before a load: removes from every raw run not loaded yet the rows of people `fanlake forget`
 * erased (their tombstones), rewriting the run's files and manifest, so the load never merges
 * them and they stay on disk no longer than between extract and load. Nothing happens, and the
 * warehouse is not opened, when nobody was forgotten. Call it holding the writer lock.
 */
export async function dropTombstoned(dataDir: string, budget: DuckDBBudget = {}, instance?: DuckDBInstance): Promise<TombstonedDrop> {
  const tombstones = await readTombstones(dataDir);
  if (!hasTombstones(tombstones)) return { byResource: new Map(), rows: 0 };
  const hash = await keyedHasher(dataDir);
  const completed = await discoverRuns(dataDir);
  return withConnection(
    instance ?? warehousePath(dataDir),
    async (connection) => {
      await ensureBookkeeping(connection);
      const loaded = await loadedRuns(connection);
      const pending = completed.filter((run) => !loaded.has(runKey(run)));
      const erased = await eraseFromRawRuns(connection, dataDir, pending, tombstoneCondition(connection, tombstones, hash));
      return { byResource: erased.byResource, rows: erased.rows };
    },
    budget,
  );
}

/** One line per resource that still sent records of forgotten people; none when none did. */
export function describeDropped(dropped: TombstonedDrop): string[] {
  return [...dropped.byResource].map(
    ([resource, rows]) => `${resource}: dropped ${rows} record${rows === 1 ? '' : 's'} of forgotten people (fanlake forget); the source still holds them, ask its owner to delete them`,
  );
}
