import type { DuckDBConnection } from '@duckdb/node-api';
import { queryRows, quoteIdent, quoteLiteral } from '../core/duckdb.js';
import { bookkeepingRelation, findBookkeeping } from './bookkeeping.js';

/**
 * What each write changed in each table since `check` last tested it, so a check can test the
 * rows that changed instead of whole tables (models/checks/delta-tests.ts). Every write of a
 * model, and every load of a raw table, moves its generation on: a merge by `unique_key`
 * records the keys it inserted, replaced or deleted under that generation
 * (`meta.changed_keys`); any other write of a model (a view, a table without a key, a first
 * build, `--full-refresh`, a merge that cannot be written as one) and a raw table's erasure
 * records that the table was written in full since that generation (`whole_since`); a load's
 * rows carry its run instead. Both are written in the transaction
 * that writes the table, so a build or load killed midway leaves neither. It lives beside the
 * other bookkeeping because the loader, the builder and erasure all write it.
 */
const CHANGES = bookkeepingRelation('model_changes');
const KEYS = bookkeepingRelation('changed_keys');
/** The column of a write's scratch tables that holds a stored row's rowid. */
export const ROW = '__fanlake_row';

/**
 * More keys than this share of the table's rows pending for a check turn into "written in
 * full": testing a quarter of a table by key costs about what testing all of it does, and the
 * keys of a warehouse that is built but never checked stay bounded.
 */
const MOST_KEYED_SHARE = 0.25;
/** Below this many keys a table is never turned into "written in full" (small tables cost nothing either way). */
const FEWEST_KEPT = 1000;

/** A table's writes so far: its generation and that of its last write in full (0: none since tracking began). */
export interface ModelChanges {
  readonly generation: number;
  readonly wholeSince: number;
}

/** Every table's writes, models' and raw tables'; empty before the first build or load that kept them. */
export async function readModelChanges(connection: DuckDBConnection): Promise<Map<string, ModelChanges>> {
  const relation = await findBookkeeping(connection, 'model_changes');
  if (relation === undefined) return new Map();
  const rows = await queryRows(connection, `select relation, generation, whole_since from ${relation}`);
  return new Map(rows.map((row) => [String(row.relation), { generation: Number(row.generation), wholeSince: Number(row.whole_since) }]));
}

/**
 * The keys the writes of model `relation` changed since its changes were `before`, as a query
 * of the key column `key` (a single-column key): none when it was not written since; undefined
 * when it was written in full since, or its changes were not kept, and any key may have changed.
 */
export async function keysChangedSince(connection: DuckDBConnection, relation: string, before: ModelChanges | undefined, key: string): Promise<string | undefined> {
  const now = (await readModelChanges(connection)).get(relation.toLowerCase());
  if (before === undefined || now === undefined) return undefined;
  if (now.generation === before.generation) return `select null::varchar as ${quoteIdent(key)} where false`;
  if (now.wholeSince > before.generation) return undefined;
  const path = quoteLiteral(`$.${key}`);
  return `select json_extract_string(key, ${path}) as ${quoteIdent(key)} from ${KEYS} where relation = ${quoteLiteral(relation.toLowerCase())} and generation > ${before.generation}`;
}

/**
 * A raw table's state as builds and checks compare it: the generation its loads recorded
 * (`recordRawWrite`), which a load that only read rows again leaves; undefined when no load
 * of this version wrote it, and the caller reads the table itself.
 */
export function loadedState(changes: ReadonlyMap<string, ModelChanges>, relation: string): string | undefined {
  const generation = changes.get(relation)?.generation;
  return generation === undefined ? undefined : `loaded generation ${generation}`;
}

/** Records that `relation` was written in full: its keys so far mean nothing to a check. */
export async function recordWrittenInFull(connection: DuckDBConnection, relation: string): Promise<void> {
  const generation = await nextGeneration(connection, relation, { writtenInFull: true });
  await connection.run(`delete from ${KEYS} where relation = ${quoteLiteral(relation.toLowerCase())} and generation < ${generation}`);
}

/**
 * Records what a load did to raw table `relation`, in its transaction: a load that changed what
 * a test can judge (rows inserted, replaced with other values, flagged or unflagged vanished,
 * columns changed) moves its generation on, which `check` takes as the table's state instead of
 * scanning it; a load that only brought rows again (their lineage) leaves it, but gives a table
 * that has none its first one. A load is not a write in full: every row it writes carries its
 * run, and it removes no key, so a check finds what it changed by its runs.
 */
export async function recordRawWrite(connection: DuckDBConnection, relation: string, changed: boolean): Promise<void> {
  if (changed) {
    await nextGeneration(connection, relation);
    return;
  }
  await connection.run(`insert into ${CHANGES} (relation, generation, whole_since) values ($1, 1, 1) on conflict (relation) do nothing`, [relation.toLowerCase()]);
}

/**
 * Records an erasure in raw table `relation`, in its transaction: rows deleted or values cleared
 * without a run of their own, so a write in full (a check cannot tell which keys it removed).
 */
export async function recordRawErasure(connection: DuckDBConnection, relation: string): Promise<void> {
  await recordWrittenInFull(connection, relation);
}

/**
 * Collects the keys a write deletes, replaces or inserts, and records them for `relation`
 * under a new generation, or the table as written in full when they are too many. Call
 * `deleteWhere` and `keep` for its statements, then `finish`, all inside the write's
 * transaction. The keys are read before each statement, not by `returning`: DuckDB fetches
 * the rows a DELETE or MERGE returns one at a time, about 55 µs each (0.7 s for the 12,396
 * tickets of a quiet hour's int_ticket_kinds, whose merge took 0.04 s). They stay where the
 * write found them (its scratch tables, which must live until `finish`) and are recorded from
 * there in one statement: copying them into a table of their own cost three statements a write.
 */
export class ChangedKeys {
  /** Queries of the key columns of the rows kept so far. */
  private readonly kept: string[] = [];
  /** Scratch tables of `deleteWhere`, dropped by `close`. */
  private readonly scratch: string[] = [];
  private collected = 0;
  private overflow = false;

  private constructor(
    private readonly connection: DuckDBConnection,
    private readonly relation: string,
    private readonly target: string,
    private readonly keys: readonly string[],
    private readonly limit: number,
  ) {}

  /** `target` as SQL names it, `keys` as its columns spell them. */
  static async start(connection: DuckDBConnection, relation: string, target: string, keys: readonly string[]): Promise<ChangedKeys> {
    const [row] = await queryRows(connection, `select (select count(*) from ${target}) as n, (select count(*) from ${KEYS} where relation = $1) as pending`, [relation.toLowerCase()]);
    const limit = Math.max(FEWEST_KEPT, Math.floor(Number(row!.n) * MOST_KEYED_SHARE)) - Number(row!.pending);
    return new ChangedKeys(connection, relation, target, keys, limit);
  }

  /** The next statements write about `rows` rows: past the limit, the table counts as written in full before they run. */
  expect(rows: number): void {
    if (this.collected + rows > this.limit) this.overflow = true;
  }

  /**
   * Adds the `rows` keys `keys` selects (the key columns, in the table's order, of rows a
   * statement is about to delete or write; what it reads must stay until `finish`) to those
   * collected, or, past the limit, counts the write as one in full; nothing once it does.
   */
  keep(keys: string, rows: number): void {
    if (this.overflow) return;
    if (this.collected + rows > this.limit) {
      this.overflow = true;
      return;
    }
    this.collected += rows;
    if (rows > 0) this.kept.push(keys);
  }

  /**
   * Deletes the rows `condition` holds for and returns how many; unless more keys than are
   * kept are due, it keeps their keys, and evaluates the condition once: the keys first, then
   * the rows of those keys (a model's incremental_delete reads other tables, 0.05-0.1 s each).
   */
  async deleteWhere(condition: string): Promise<number> {
    const deleteAll = `delete from ${this.target} where ${condition}`;
    if (this.overflow) return Number((await this.connection.run(deleteAll)).rowsChanged);
    const columns = this.keys.map(quoteIdent).join(', ');
    const deletingName = quoteIdent(`__fanlake_deleting__${this.relation.toLowerCase().replaceAll('.', '__')}`);
    const deleting = `temp.main.${deletingName}`;
    this.scratch.push(deleting);
    // the rows by rowid, stable within the transaction: a join on the key read the table's keys again (30-50 ms on a large table)
    await this.connection.run(`create or replace temp table ${deletingName} as select ${columns}, rowid as ${ROW} from ${this.target} where ${condition}`);
    const rows = Number((await this.connection.run(`delete from ${this.target} where rowid in (select ${ROW} from ${deleting})`)).rowsChanged);
    this.keep(`select ${columns} from ${deleting}`, rows);
    return rows;
  }

  /** Records what was collected: the keys under a new generation, or the table as written in full. */
  async finish(): Promise<void> {
    if (this.overflow) return recordWrittenInFull(this.connection, this.relation);
    if (this.collected === 0) return;
    const generation = await nextGeneration(this.connection, this.relation);
    const fields = this.keys.map((key) => `${quoteLiteral(key)}: ${quoteIdent(key)}`).join(', ');
    await this.connection.run(
      `insert into ${KEYS} select distinct ${quoteLiteral(this.relation.toLowerCase())}, ${generation}, to_json({${fields}}) from (${this.kept.join(' union all ')})`,
    );
  }

  /** Drops the scratch tables of `deleteWhere`; call it after `finish`, or when the write failed. */
  async close(): Promise<void> {
    for (const table of this.scratch.splice(0)) await this.connection.run(`drop table if exists ${table}`);
  }
}

/**
 * Moves `relation`'s generation on by one and returns it (1 for its first recorded write);
 * `writtenInFull` marks the table whole since that generation in the same statement.
 */
async function nextGeneration(connection: DuckDBConnection, relation: string, { writtenInFull = false } = {}): Promise<number> {
  const [row] = await queryRows(
    connection,
    `insert into ${CHANGES} (relation, generation, whole_since) values ($1, 1, ${writtenInFull ? 1 : 0})
     on conflict (relation) do update set generation = ${CHANGES}.generation + 1${writtenInFull ? `, whole_since = ${CHANGES}.generation + 1` : ''}
     returning generation`,
    [relation.toLowerCase()],
  );
  return Number(row!.generation);
}
