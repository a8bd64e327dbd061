import { createHash } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import { insertRows, queryRows, quoteIdent, quoteLiteral } from '../../core/duckdb.js';
import { bookkeepingRelation, findBookkeeping } from '../../warehouse/bookkeeping.js';
import { RUN_ID_COLUMN, VANISHED_COLUMN } from '../../raw-contract/index.js';
import { type ModelProject, SOURCE_SCHEMA } from '../discover-project.js';
import { columnsByRelation } from '../../warehouse/warehouse.js';
import type { ModelChanges } from '../../warehouse/changed-keys.js';
import type { PlannedTest } from './plan-tests.js';
import type { TestDeclaration } from './test-declaration.js';
import type { TestInputs } from './check-state.js';
import type { RowsOf } from '../model-header.js';
import { rawTables } from '../../sources/raw-personal-columns.js';

/**
 * Tests of the rows that changed. A declared test that passed before need not read the whole
 * table again: every row that could fail it now either changed since that pass or, for a
 * relationships test, points at a parent key that did. A model written as a difference
 * (`unique_key`) says which keys its builds changed (`meta.changed_keys`, warehouse/changed-keys.ts);
 * a raw table's changed rows carry the `_run_id` of a load the ledger lists after the pass. The
 * test reads those and finds the same failing rows a run over the whole table would. A relation
 * it reads that changed otherwise (written in full, or not written by key: a view, a table
 * without a key; a raw parent, whose deletions no load lists), a test that never passed or whose
 * definition changed, and `check --all` read whole tables.
 */

const CHANGES = bookkeepingRelation('model_changes');
const KEYS = bookkeepingRelation('changed_keys');
const PASSES = bookkeepingRelation('check_passes');

/** What a test read when it last passed: each relation's state and generation. */
export interface LastPass {
  readonly definition: string;
  /** `loadedAt`: a raw table's newest load then, from the load ledger. */
  readonly relations: Readonly<Record<string, { state: string; generation: number; loadedAt?: string }>>;
}

/** Each test's last pass, by name. */
export async function readLastPasses(connection: DuckDBConnection): Promise<Map<string, LastPass>> {
  const relation = await findBookkeeping(connection, 'check_passes');
  if (relation === undefined) return new Map();
  const rows = await queryRows(connection, `select test_name, definition, relations::varchar as relations from ${relation}`);
  return new Map(rows.map((row) => [String(row.test_name), { definition: String(row.definition), relations: JSON.parse(String(row.relations)) }]));
}

/** A test's pass now: its definition, and the state, generation and (raw) newest load of each relation it reads. */
export function passOf(
  test: { definition: string; reads: readonly string[] },
  states: ReadonlyMap<string, string>,
  changes: ReadonlyMap<string, ModelChanges>,
  loads: Loads | undefined,
): LastPass {
  const relations = test.reads.map((relation) => {
    const loadedAt = loads?.newest.get(relation);
    return [relation, { state: states.get(relation) ?? '', generation: changes.get(relation)?.generation ?? 0, ...(loadedAt === undefined ? {} : { loadedAt }) }] as const;
  });
  return { definition: test.definition, relations: Object.fromEntries(relations) };
}

/**
 * Keeps the tests that passed in this check as their last pass, and forgets the changed keys
 * every test reading them has passed since (a test without a pass tests the whole table
 * anyway). Call it in the transaction that records the results.
 */
export async function recordPasses(
  connection: DuckDBConnection,
  passed: readonly { name: string; pass: LastPass }[],
  before: ReadonlyMap<string, LastPass>,
  tests: readonly { name: string; definition: string; reads: readonly string[] }[],
  changes: ReadonlyMap<string, ModelChanges>,
): Promise<void> {
  await insertRows(connection, `insert or replace into ${PASSES}`, '($1, $2, cast($3 as json))', passed.map(({ name, pass }) => [name, pass.definition, JSON.stringify(pass.relations)]));
  const passes = new Map(before);
  for (const { name, pass } of passed) passes.set(name, pass);
  const settled = [...changes].map(([relation, change]) => {
    let generation = change.generation;
    for (const test of tests) {
      const pass = passes.get(test.name);
      const at = pass?.definition === test.definition ? pass.relations[relation]?.generation : undefined;
      if (test.reads.includes(relation) && at !== undefined) generation = Math.min(generation, at);
    }
    return `(${quoteLiteral(relation)}, ${generation})`;
  });
  if (settled.length === 0) return;
  // one statement for every relation: a statement each cost about 3 ms, 0.3 s of every check
  await connection.run(
    `delete from ${KEYS} as changed
     where exists (select 1 from (values ${settled.join(', ')}) as settled(relation, generation) where settled.relation = changed.relation and changed.generation <= settled.generation)`,
  );
}

/** What each keyed model's key columns are called and typed in the warehouse, by relation in lower case. */
export type KeyColumns = Map<string, { name: string; type: string }[]>;

/** The key columns of every model a check may test by key: a table or incremental model with a `unique_key`. */
export async function keyColumnsOf(connection: DuckDBConnection, project: ModelProject): Promise<KeyColumns> {
  const keyed = project.models.filter((model) => model.materialized !== 'view' && model.uniqueKey.length > 0);
  if (keyed.length === 0) return new Map();
  const columns = await columnsByRelation(connection);
  const out: KeyColumns = new Map();
  for (const model of keyed) {
    const relation = model.relation.toLowerCase();
    const present = columns.get(relation) ?? [];
    const keys = model.uniqueKey.map((key) => present.find((column) => column.name.toLowerCase() === key.toLowerCase()));
    if (keys.every((key) => key !== undefined)) out.set(relation, keys as { name: string; type: string }[]);
  }
  return out;
}

/**
 * What a relation a test reads went through since the test last passed: nothing; writes by
 * key after a generation (a model); loads after a time (a raw table: every row a load writes
 * carries its run's `_run_id`); or anything.
 */
export type Since = { kind: 'unchanged' } | { kind: 'keys'; after: number } | { kind: 'runs'; after: string } | { kind: 'whole' };

/** What each relation a test reads went through since `pass`, by relation in lower case. */
export function sinceOf(
  pass: LastPass,
  states: ReadonlyMap<string, string>,
  changes: ReadonlyMap<string, ModelChanges>,
  keyColumns: KeyColumns,
  loads: Loads | undefined,
): (relation: string) => Since {
  return (relation) => {
    const then = pass.relations[relation];
    if (then === undefined) return { kind: 'whole' };
    const change = changes.get(relation);
    if (keyColumns.has(relation) && change !== undefined) {
      // a table every write of which moved its generation on: the same generation, the same rows
      if (change.generation === then.generation) return { kind: 'unchanged' };
      // every write since the pass recorded its keys
      return change.wholeSince <= then.generation && change.generation > then.generation ? { kind: 'keys', after: then.generation } : { kind: 'whole' };
    }
    if (then.state === states.get(relation)) return { kind: 'unchanged' };
    // only loads since the pass (an erasure, which deletes or clears rows in no run, is a write in full)
    const loadedOnly = change !== undefined && change.wholeSince <= then.generation;
    if (relation.startsWith(`${SOURCE_SCHEMA}.`) && loadedOnly && then.loadedAt !== undefined && loads?.newest.has(relation)) return { kind: 'runs', after: then.loadedAt };
    return { kind: 'whole' };
  };
}

/** Where the load ledger is, and the newest load of each raw table in it (`raw.<source>_<resource>`). */
export interface Loads {
  readonly ledger: string;
  readonly newest: ReadonlyMap<string, string>;
}

/** The newest load of each raw table, from the load ledger; undefined without one. */
export async function readLoads(connection: DuckDBConnection): Promise<Loads | undefined> {
  const ledger = await findBookkeeping(connection, 'load_ledger');
  if (ledger === undefined) return undefined;
  const rows = await queryRows(connection, `select lower('raw.' || source || '_' || resource) as relation, max(loaded_at)::varchar as newest from ${ledger} group by all`);
  return { ledger, newest: new Map(rows.map((row) => [String(row.relation), String(row.newest)])) };
}

/** The rows of a table that changed since a pass, materialized once for the tests that read them. */
export interface ChangedRows {
  /** A temporary table's name, the same for the same rows. */
  readonly name: string;
  /** `<table> as t semi join ...`: the table's rows that changed, as `t`. */
  readonly from: string;
  /** The columns the test judges: what it counts its failing rows by. */
  readonly columns: readonly string[];
}

/**
 * A test's query of its failing rows among the changed ones: `sql` picks the changed rows of the
 * table by a join of their keys; `shared`, when the test reads them, the same query reading them
 * from `rows` materialized (run-checks.ts materializes the columns they judge once for all the
 * tests of that table, where each test scanned the whole table for them). `shared.sql` counts
 * the failing rows; their sample, all of a row's columns, comes from `sql`.
 */
export interface ChangedRowsQuery {
  readonly sql: string;
  readonly shared?: { readonly rows: ChangedRows; readonly sql: string };
}

/**
 * The query of `test`'s failing rows among what changed since its last pass, or undefined when
 * it must read whole tables. `states`: each relation's state now, as the test's inputs see it.
 */
export function changedRowsSql(
  test: PlannedTest,
  pass: LastPass | undefined,
  current: Pick<TestInputs, 'definition' | 'rowsOf'>,
  states: ReadonlyMap<string, string>,
  changes: ReadonlyMap<string, ModelChanges>,
  keyColumns: KeyColumns,
  loads: Loads | undefined,
): ChangedRowsQuery | undefined {
  const declaration = test.declaration;
  if (declaration === undefined || test.target === undefined || pass === undefined || pass.definition !== current.definition) return undefined;
  // a snapshot's vanished flag is set without a new _run_id
  if (declaredColumns(declaration).some((column) => column.toLowerCase() === VANISHED_COLUMN)) return undefined;
  const since = sinceOf(pass, states, changes, keyColumns, loads);
  const target = test.target.toLowerCase();
  let child = since(target);
  // the changed rows, as `t`: a semi join (DuckDB plans an exists on them as a scan per row)
  let changedRows: string | undefined;
  if (child.kind === 'whole' && current.rowsOf !== undefined) {
    // a view that changed: its rows of the keys changed in the relation its rows are made of
    child = since(current.rowsOf.relation);
    if (child.kind === 'whole') return undefined;
    const rows = viewRowsOf(current.rowsOf, child, keyColumns, loads);
    if (rows === null) return undefined;
    changedRows = rows;
  } else {
    if (child.kind === 'whole') return undefined;
    changedRows = changedRowsOf(target, child, keyColumns, loads);
  }
  const table = tableOf(test.target);
  const sql = (changed: string) => declaredSql(declaration, target, table, changed, changedRows, child, since, keyColumns);
  const from = changedRows === undefined ? `${table} as t` : `${table} as t semi join ${changedRows}`;
  const joined = sql(from);
  if (joined === undefined) return undefined;
  if (changedRows === undefined) return { sql: joined };
  const rows = { name: `_fanlake_changed_${createHash('sha256').update(from).digest('hex').slice(0, 16)}`, from, columns: declaredColumns(declaration) };
  // not where the query also reads the table's rows whole (t.*: a relationships test's rows
  // pointing at changed parent keys), whose columns a union must match
  const readsWhole = declaration.kind === 'relationships' && since(`${declaration.to.schema}.${declaration.to.table}`.toLowerCase()).kind === 'keys';
  const shared = readsWhole ? undefined : sql(`temp.main.${rows.name} as t`);
  return { sql: joined, ...(shared === undefined || shared === joined ? {} : { shared: { rows, sql: shared } }) };
}

/**
 * A declared test's query over `changed` (`<relation> as t`: the rows of `table` that changed, or
 * every row with `changedRows` undefined, which no row passes then).
 */
function declaredSql(
  declaration: TestDeclaration,
  target: string,
  table: string,
  changed: string,
  changedRows: string | undefined,
  child: Since,
  since: (relation: string) => Since,
  keyColumns: KeyColumns,
): string | undefined {
  const none = changedRows === undefined ? 'false and ' : '';
  switch (declaration.kind) {
    case 'not_null':
      return `select t.*
from ${changed}
where ${none}(${declaration.columns.map((column) => `t.${quoteIdent(column)} is null`).join(' or ')})`;
    case 'accepted_values': {
      const column = `t.${quoteIdent(declaration.column)}`;
      return `select ${column}, count(*) as n_records
from ${changed}
where ${none}${column} is not null
    and ${column}::varchar not in (${declaration.values.map(quoteLiteral).join(', ')})
group by ${column}
order by n_records desc`;
    }
    case 'unique': {
      // the groups the changed rows fall in, counted over the whole table
      const columns = declaration.columns.map(quoteIdent);
      const list = columns.map((column) => `t.${column}`).join(', ');
      // of the model's own key, they are its changed keys (a removed one has no row): one scan fewer
      const keys = keyColumns.get(target);
      const ownKey = child.kind === 'keys' && keys?.length === declaration.columns.length && keys.every((key) => declaration.columns.some((column) => column.toLowerCase() === key.name.toLowerCase()));
      const groups = ownKey && child.kind === 'keys' ? changedKeys(target, child.after, keys!) : `(select distinct ${list} from ${changed} where ${none}true)`;
      return `select ${list}, count(*) as n_records
from ${table} as t
semi join ${groups} as g on ${columns.map((column) => `g.${column} is not distinct from t.${column}`).join(' and ')}
where not (${columns.map((column) => `t.${column} is null`).join(' and ')})
group by ${list}
having count(*) > 1
order by n_records desc`;
    }
    case 'relationships':
      return relationshipsSql(declaration, table, changed, changedRows, since, keyColumns);
  }
}

/**
 * Child rows that changed, and those that point at a parent key that changed (one removed
 * among them), without a parent. A raw parent only loaded since, whose column is its one-column
 * primary key, lost no key (a load replaces rows by key): only the changed child rows can be
 * orphans. A parent that changed otherwise, or whose column is not its one-column key, needs
 * the whole test.
 */
function relationshipsSql(
  declaration: Extract<TestDeclaration, { kind: 'relationships' }>,
  table: string,
  changed: string,
  changedRows: string | undefined,
  since: (relation: string) => Since,
  keyColumns: KeyColumns,
): string | undefined {
  const { to } = declaration;
  const parentRelation = `${to.schema}.${to.table}`.toLowerCase();
  const parent = since(parentRelation);
  if (parent.kind === 'whole') return undefined;
  if (parent.kind === 'runs' && !isRawPrimaryKey(parentRelation, to.column)) return undefined;
  const column = `t.${quoteIdent(declaration.column)}`;
  const orphan = `${column} is not null
    and not exists (
        select 1
        from ${quoteIdent(to.schema)}.${quoteIdent(to.table)} as parent
        where parent.${quoteIdent(to.column)} = ${column}
    )`;
  const parts = changedRows === undefined ? [] : [`select t.*\nfrom ${changed}\nwhere ${orphan}`];
  if (parent.kind === 'keys') {
    const keys = keyColumns.get(parentRelation)!;
    if (keys.length !== 1 || keys[0]!.name.toLowerCase() !== to.column.toLowerCase()) return undefined;
    const pointing = `${table} as t semi join ${changedKeys(parentRelation, parent.after, keys)} as p on p.${quoteIdent(keys[0]!.name)} = ${column}`;
    // a changed child row pointing at a changed parent key is found once, among the changed rows
    parts.push(`select t.*\nfrom ${pointing}${changedRows === undefined ? '' : ` anti join ${changedRows}`}\nwhere ${orphan}`);
  }
  return parts.length === 0 ? `select t.*\nfrom ${table} as t\nwhere false` : parts.join('\nunion all\n');
}

/** `<rows> as k on <k matches t>`: what changed in `relation` since, to join `t` with; undefined for nothing. */
function changedRowsOf(relation: string, since: Since, keyColumns: KeyColumns, loads: Loads | undefined): string | undefined {
  switch (since.kind) {
    case 'keys': {
      const keys = keyColumns.get(relation)!;
      const same = keys.map((key) => `k.${quoteIdent(key.name)} is not distinct from t.${quoteIdent(key.name)}`).join(' and ');
      return `${changedKeys(relation, since.after, keys)} as k on ${same}`;
    }
    case 'runs':
      return `${runsAfter(relation, since.after, loads!)} as k on k.run_id = t.${quoteIdent(RUN_ID_COLUMN)}`;
    default:
      return undefined;
  }
}

/**
 * `<keys> as k on <k matches t>`: the keys changed in `rowsOf.relation` since, matched to the
 * view's rows (`t`) by the declared expression of their key; undefined for none; null where its
 * changes cannot be told by one key column (a model keyed by several, a raw table without a
 * one-column primary key).
 */
function viewRowsOf(rowsOf: RowsOf, since: Since, keyColumns: KeyColumns, loads: Loads | undefined): string | undefined | null {
  const { relation, expression } = rowsOf;
  let keys: string;
  if (since.kind === 'keys') {
    const columns = keyColumns.get(relation)!;
    if (columns.length !== 1) return null;
    keys = `select ${quoteIdent(columns[0]!.name)} as _fanlake_key from ${changedKeys(relation, since.after, columns)} as changed`;
  } else if (since.kind === 'runs') {
    const key = rawTables().find((table) => table.relation === relation)?.spec.primaryKey;
    if (key?.length !== 1) return null;
    keys = `select loaded.${quoteIdent(key[0]!)} as _fanlake_key from ${tableOf(relation)} as loaded semi join ${runsAfter(relation, since.after, loads!)} as runs on runs.run_id = loaded.${quoteIdent(RUN_ID_COLUMN)}`;
  } else {
    return since.kind === 'unchanged' ? undefined : null;
  }
  // the expression names the view's columns unqualified: `k` has none of them
  return `(${keys}) as k on k._fanlake_key is not distinct from (${expression})`;
}

/** `schema.table` quoted, as SQL names it. */
export function tableOf(relation: string): string {
  return relation.split('.').map(quoteIdent).join('.');
}

/** `(select run_id ...)`: the runs the ledger lists as loaded into raw table `relation` after `after`. */
export function runsAfter(relation: string, after: string, loads: Loads): string {
  return `(select run_id from ${loads.ledger} where lower('raw.' || source || '_' || resource) = ${quoteLiteral(relation)} and loaded_at > cast(${quoteLiteral(after)} as timestamptz))`;
}

/** Whether `column` is raw table `relation`'s one-column primary key, by which its loads merge. */
function isRawPrimaryKey(relation: string, column: string): boolean {
  const key = rawTables().find((table) => table.relation === relation)?.spec.primaryKey;
  return key?.length === 1 && key[0]!.toLowerCase() === column.toLowerCase();
}

/** The columns a declaration names in its own table. */
function declaredColumns(declaration: TestDeclaration): string[] {
  return 'columns' in declaration ? declaration.columns : [declaration.column];
}

/** The keys of `relation` changed after generation `after`, as typed columns. */
export function changedKeys(relation: string, after: number, keys: readonly { name: string; type: string }[]): string {
  const structure = JSON.stringify(Object.fromEntries(keys.map((key) => [key.name, key.type])));
  return `(select distinct unnest(from_json(key, ${quoteLiteral(structure)})) from ${KEYS} where relation = ${quoteLiteral(relation)} and generation > ${after})`;
}
