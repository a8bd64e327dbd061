import { existsSync } from 'node:fs';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { type DuckDBBudget, inTransaction, queryRows, quoteIdent, quoteLiteral, withConnection } from '../core/duckdb.js';
import { discoverRuns } from '../load/discover-runs.js';
import { RAW_SCHEMA, VANISHED_COLUMN, warehousePath } from '../raw-contract/index.js';
import { rawTables } from '../sources/raw-personal-columns.js';
import { columnsByRelation } from '../warehouse/warehouse.js';
import { ensureBookkeeping } from '../warehouse/bookkeeping.js';
import { recordRawErasure } from '../warehouse/changed-keys.js';
import { eraseFromRawRuns } from './erase-raw-runs.js';
import { appendErasureAudit } from './tombstones.js';

export interface VanishedErasureOptions {
  dataDir: string;
  /** A record vanished longer ago than this has its personal data erased (`privacy.vanishedDays`, at least 1). */
  vanishedDays: number;
  now?: Date;
  budget?: DuckDBBudget;
  /** The warehouse, already open (`run`'s); left open. */
  instance?: DuckDBInstance;
}

export interface VanishedErasure {
  /** Records whose personal columns were cleared, by raw table. */
  readonly cleared: ReadonlyMap<string, number>;
  /** Rows removed from raw runs on disk. */
  readonly rawRows: number;
  /** Set by a caller that went on when the erasure failed: why. */
  readonly error?: string;
}

/** Where the keys of the records being cleared wait between the raw files and the warehouse. */
const KEYS_TABLE = 'fanlake_vanished_keys';

/**
 * Erasure that follows the source: a record a complete snapshot no longer had for
 * `vanishedDays` has its rows removed from the raw runs still on disk, then its personal
 * columns (`TableSpec.personal`, but no key column) set to NULL in its raw table. Its keys,
 * `_vanished_at` and other columns stay, so models keep its `fan_id` and its place in the
 * figures. The files go first: a crash in between leaves the warehouse row to clear, which
 * the next run finds again (the raw rewrite then finds nothing). Call it after a load, holding
 * the writer lock.
 */
export async function eraseVanished(options: VanishedErasureOptions): Promise<VanishedErasure> {
  const cleared = new Map<string, number>();
  if (options.instance === undefined && !existsSync(warehousePath(options.dataDir))) return { cleared, rawRows: 0 };
  const cutoff = new Date((options.now ?? new Date()).getTime() - options.vanishedDays * 86_400_000).toISOString();
  const completed = await discoverRuns(options.dataDir);
  let rawRows = 0;
  await withConnection(
    options.instance ?? warehousePath(options.dataDir),
    async (connection) => {
      // the raw tables' columns in one look at the catalog (the loop changes none): one look per
      // table cost 3-4 ms apiece, about 70 ms of every load
      const rawColumns = await columnsByRelation(connection, RAW_SCHEMA);
      for (const { relation, source, spec } of rawTables()) {
        const [schema, table] = relation.split('.') as [string, string];
        const columns = rawColumns.get(`${schema}.${table}`.toLowerCase());
        const present = columns === undefined ? undefined : new Set(columns.map((column) => column.name));
        if (present === undefined || !present.has(VANISHED_COLUMN)) continue;
        const personal = Object.keys(spec.personal ?? {}).filter((column) => present.has(column) && !spec.primaryKey.includes(column));
        if (personal.length === 0) continue;
        const target = `${quoteIdent(schema)}.${quoteIdent(table)}`;
        const key = `cast(row(${spec.primaryKey.map(quoteIdent).join(', ')}) as varchar)`;
        const keysOfTable = `(select ${key} from temp.${KEYS_TABLE})`;
        await connection.run(
          `create or replace temp table ${KEYS_TABLE} as select ${spec.primaryKey.map(quoteIdent).join(', ')} from ${target}
           where ${VANISHED_COLUMN} < cast(${quoteLiteral(cutoff)} as timestamptz) and (${personal.map((column) => `${quoteIdent(column)} is not null`).join(' or ')})`,
        );
        const records = await countRows(connection, `temp.${KEYS_TABLE}`);
        if (records > 0) {
          const runs = completed.filter((run) => run.source === source && run.resource === spec.name);
          const erased = await eraseFromRawRuns(connection, options.dataDir, runs, (_manifest, columns) =>
            spec.primaryKey.every((column) => columns.includes(column)) ? `${key} in ${keysOfTable}` : undefined,
          );
          rawRows += erased.rows;
          // with the table's new generation, so a check does not carry tests of what it held before
          await ensureBookkeeping(connection);
          await inTransaction(connection, async () => {
            await connection.run(`update ${target} set ${personal.map((column) => `${quoteIdent(column)} = null`).join(', ')} where ${key} in ${keysOfTable}`);
            await recordRawErasure(connection, relation);
          });
          cleared.set(relation, records);
        }
        await connection.run(`drop table if exists temp.${KEYS_TABLE}`);
      }
    },
    options.budget,
  );
  const records = [...cleared.values()].reduce((sum, n) => sum + n, 0);
  if (records > 0) {
    await appendErasureAudit(options.dataDir, { at: (options.now ?? new Date()).toISOString(), kind: 'vanished', records, detail: Object.fromEntries(cleared) });
  }
  return { cleared, rawRows };
}

async function countRows(connection: DuckDBConnection, relation: string): Promise<number> {
  const [row] = await queryRows(connection, `select count(*) as n from ${relation}`);
  return Number(row!.n);
}
