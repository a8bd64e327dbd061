import type { DuckDBConnection } from '@duckdb/node-api';
import { queryRows, quoteIdent } from '../core/duckdb.js';
import { META_SCHEMA } from './meta-schema.js';

/**
 * What `load`, `build` and `check` keep in the warehouse to know what they did before, in schema `meta`
 * beside the run records. fanlake reads these tables; reports do not (they are not in
 * META_TABLES), and only fanlake writes them.
 */
export const BOOKKEEPING_TABLES = {
  /**
   * One row per resource-run merged into the warehouse, written in the load's transaction, so
   * it can never disagree with the raw tables (load/load-ledger.ts).
   */
  load_ledger: `
    source varchar not null,
    resource varchar not null,
    run_id varchar not null,
    extracted_at timestamptz not null,
    loaded_at timestamptz not null,
    rows bigint not null,
    is_snapshot boolean not null,
    files json not null`,
  /**
   * One row per resource-run the load passed over for good: a snapshot difference taken
   * against another state of the warehouse than the one it would be applied onto
   * (load/difference-bases.ts). Written in the load's transaction; with the ledger, every
   * complete run is accounted for, and none of these is loaded later.
   */
  skipped_runs: `
    source varchar not null,
    resource varchar not null,
    run_id varchar not null,
    extracted_at timestamptz not null,
    skipped_at timestamptz not null,
    code varchar not null,
    reason varchar not null`,
  /**
   * The last successful build of each model: its fingerprint, definition and content
   * signature; null definition and content for a model last built by a fanlake that kept
   * neither (models/build-state.ts).
   */
  build_state: `
    relation varchar primary key,
    fingerprint varchar not null,
    built_at timestamptz not null,
    definition varchar,
    content varchar`,
  /**
   * Each data test's last run: its definition, what it read and what it found, so a test
   * whose definition and inputs are unchanged repeats its result (models/checks/check-state.ts).
   */
  check_state: `
    test_name varchar primary key,
    definition varchar not null,
    inputs varchar not null,
    check_run_id varchar not null,
    checked_at timestamptz not null,
    result json not null`,
  /**
   * Each model's writes as `check` tests them: a generation moved on by every write, and the
   * generation of its last write in full (warehouse/changed-keys.ts).
   */
  model_changes: `
    relation varchar primary key,
    generation bigint not null,
    whole_since bigint not null`,
  /**
   * The keys a build's merge inserted, replaced or deleted in a model, by generation, kept until
   * every test of the model has passed since (warehouse/changed-keys.ts, models/checks/delta-tests.ts).
   */
  changed_keys: `
    relation varchar not null,
    generation bigint not null,
    key json not null`,
  /**
   * Each data test's last pass: its definition and, for each relation it reads, the state and
   * generation it passed at; a later check tests only what changed since (models/checks/delta-tests.ts).
   */
  check_passes: `
    test_name varchar primary key,
    definition varchar not null,
    relations json not null`,
  /**
   * The text of each view and macro as DuckDB writes it back in any session, by the hash of the
   * text the warehouse holds, so a check turns each text so once (models/checks/check-state.ts).
   */
  session_free_sql: `
    text_hash varchar primary key,
    session_free varchar not null`,
} as const;

export type BookkeepingTable = keyof typeof BOOKKEEPING_TABLES;

/** `meta.<table>`, as SQL names it. */
export function bookkeepingRelation(table: BookkeepingTable): string {
  return `${META_SCHEMA}.${table}`;
}

/** Where fanlake kept each table before schema `meta` held them, next to the raw tables. */
const EARLIER_RELATIONS: Partial<Record<BookkeepingTable, { schema: string; table: string }>> = {
  load_ledger: { schema: 'raw', table: '_fanlake_loads' },
  build_state: { schema: 'raw', table: '_fanlake_builds' },
  check_state: { schema: 'raw', table: '_fanlake_checks' },
};

/**
 * Creates the bookkeeping tables when missing, and moves into them the rows a warehouse made
 * by an earlier fanlake keeps in `raw`, dropping the old tables: its load ledger and build
 * state carry over, so an upgrade loads and builds nothing again. One transaction of its own:
 * call it as a writer, before reading the tables, outside any transaction. Does nothing on a
 * warehouse that has them already.
 */
export async function ensureBookkeeping(connection: DuckDBConnection): Promise<void> {
  await connection.run('begin transaction');
  try {
    await connection.run(`create schema if not exists ${META_SCHEMA}`);
    for (const [table, columns] of Object.entries(BOOKKEEPING_TABLES) as [BookkeepingTable, string][]) {
      const relation = bookkeepingRelation(table);
      await connection.run(`create table if not exists ${relation} (${columns}\n)`);
      const earlier = EARLIER_RELATIONS[table];
      if (earlier === undefined || !(await tableExists(connection, earlier.schema, earlier.table))) continue;
      // by name: columns an older version had not declared yet stay null
      await connection.run(`insert into ${relation} by name select * from ${earlier.schema}.${earlier.table}`);
      await connection.run(`drop table ${earlier.schema}.${earlier.table}`);
    }
    await connection.run('commit');
  } catch (error) {
    await connection.run('rollback').catch(() => undefined);
    throw error;
  }
}

/**
 * The relation a reader finds a bookkeeping table in: `meta.<table>`, or, in a warehouse of an
 * earlier fanlake that no writer has opened since, where that version kept it; undefined when
 * there is neither (nothing loaded or built yet). Readers open the warehouse read-only and
 * cannot move anything. `database`: the name the warehouse is attached under, when it is not
 * the connection's own database; the relation returned is then qualified with it.
 */
export async function findBookkeeping(connection: DuckDBConnection, table: BookkeepingTable, database?: string): Promise<string | undefined> {
  const within = database === undefined ? '' : `${quoteIdent(database)}.`;
  if (await tableExists(connection, META_SCHEMA, table, database)) return `${within}${bookkeepingRelation(table)}`;
  const earlier = EARLIER_RELATIONS[table];
  if (earlier === undefined) return undefined;
  return (await tableExists(connection, earlier.schema, earlier.table, database)) ? `${within}${earlier.schema}.${earlier.table}` : undefined;
}

async function tableExists(connection: DuckDBConnection, schema: string, table: string, database?: string): Promise<boolean> {
  const [row] = await queryRows(
    connection,
    `select count(*) as n from duckdb_tables() where database_name = coalesce($3, current_database()) and schema_name = $1 and table_name = $2`,
    [schema, table, database ?? null],
  );
  return Number(row!.n) > 0;
}
