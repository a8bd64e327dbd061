import { createHash } from 'node:crypto';
import { type DuckDBConnection, DuckDBListValue, type Json } from '@duckdb/node-api';
import { insertRows, queryRows, quoteIdent } from '../../core/duckdb.js';
import { EXTRACTED_AT_COLUMN, RUN_ID_COLUMN, VANISHED_COLUMN } from '../../raw-contract/index.js';
import { bookkeepingRelation, findBookkeeping } from '../../warehouse/bookkeeping.js';
import { builtContents, contentSignature } from '../build-state.js';
import { MACRO_SCHEMA, SEEDS_SCHEMA, SOURCE_SCHEMA } from '../discover-project.js';
import { META_SCHEMA } from '../../warehouse/meta-schema.js';
import { columnsByRelation } from '../../warehouse/warehouse.js';
import { type ParsedSelect, parseSelects } from '../sql-references.js';
import type { PlannedTest } from './plan-tests.js';
import type { RowsOf } from '../model-header.js';
import { loadedState, type ModelChanges } from '../../warehouse/changed-keys.js';

/** Where each test's last run is kept, in the warehouse itself, beside the builds' state (warehouse/bookkeeping.ts). */
const CHECKS = bookkeepingRelation('check_state');
const SESSION_FREE = bookkeepingRelation('session_free_sql');

/** A test's last run: what it was, what it read, and what it found. */
export interface LastCheck {
  readonly definition: string;
  readonly inputs: string;
  readonly checkRunId: string;
  readonly checkedAt: string;
  /** The result as it was then (status, severity, failures, sample, message). */
  readonly result: Record<string, Json>;
}

/** What decides whether a test must run again: its definition, and the state of what it reads. */
export interface TestInputs {
  readonly definition: string;
  /** The relations it reads and their state; undefined when it must always run (freshness: it depends on the clock). */
  readonly inputs: string | undefined;
  /** The relations it reads (`schema.name`), where known. */
  readonly reads: readonly string[];
  /** A custom test that calls a macro: its rows may rest on more than the keys it declares. */
  readonly callsMacros?: true;
  /**
   * A declared test of a view whose rows are each of one row of the one relation it reads
   * (`-- rows_of:`, found so in the view's query): its definition holds the view's query and
   * the macros it calls, so the rows of the keys that changed in that relation are the view's
   * rows that changed.
   */
  readonly rowsOf?: RowsOf;
}

/** Each test's inputs, and the state of each relation read, as they enter the inputs. */
export interface CheckInputs {
  readonly tests: Map<string, TestInputs>;
  readonly states: ReadonlyMap<string, string>;
  /** The session-free texts this check used and turned, to keep for the next ({@link recordSessionFreeSql}). */
  readonly sessionFree: SessionFreeTexts;
}

/** Session-free texts by the hash of the text the warehouse holds: those kept, those this check turned anew, those it used. */
export interface SessionFreeTexts {
  readonly kept: ReadonlyMap<string, string>;
  readonly turned: Map<string, string>;
  readonly used: Set<string>;
}

/**
 * Each test's definition and inputs. A test reads its target, the parent of a relationships
 * test, or for a custom test the tables its SQL names (asked of DuckDB's parser). A table's
 * state is its generation, which every write moves on (warehouse/changed-keys.ts): a model's as
 * its builds record it (without one, written by an older fanlake: what its build state says),
 * a raw table's as its loads record it (a load that only saw records again leaves it); a seed,
 * loaded by every build, is summed (`contentSignature`). A view holds no rows: its state is its SQL as
 * the warehouse has it (read back the same in any session: `sessionFreeSql`), the macros it calls and the states of what it reads, so a test of a
 * view, or through one, runs again only when a table beneath it changed. A raw table no load
 * of this version has written yet is hashed instead (`rawContent`).
 */
export async function testInputs(connection: DuckDBConnection, tests: readonly PlannedTest[], changes: ReadonlyMap<string, ModelChanges>): Promise<CheckInputs> {
  const built = await builtContents(connection);
  const sessionFree: SessionFreeTexts = { kept: await readSessionFreeSql(connection), turned: new Map(), used: new Set() };
  const views = await readViews(connection, sessionFree);
  const macros = await readMacros(connection, sessionFree);
  const custom = tests.filter((test) => test.kind === 'custom' && 'sql' in test);
  const viewNames = [...views.keys()].filter((name) => views.get(name) !== undefined);
  const parsed = await parseSelects(connection, [...custom.map((test) => ('sql' in test ? test.sql : '')), ...viewNames.map((name) => views.get(name)!)]);
  const read = new Map(custom.map((test, at) => [test.name, parsed[at]!]));
  const viewReads = new Map(viewNames.map((name, at) => [name, parsed[custom.length + at]!]));
  let rawColumns: Map<string, { name: string }[]> | undefined;
  const states = new Map<string, string | undefined>();
  /** A relation's state; undefined when what it reads cannot be known, or changes with every build (fanlake's own records in meta). */
  const stateOf = async (relation: string, within: ReadonlySet<string> = new Set()): Promise<string | undefined> => {
    if (states.has(relation)) return states.get(relation);
    if (relation.startsWith(`${META_SCHEMA}.`) || within.has(relation)) return undefined;
    const generation = changes.get(relation)?.generation;
    let state: string | undefined;
    const view = viewReads.get(relation);
    if (view?.ok) {
      const reading = await statesOf(view, new Set([...within, relation]));
      state = reading === undefined ? undefined : `view ${hashOf([views.get(relation)!, reading].join('\n'))}`;
    } else if (relation.startsWith(`${SOURCE_SCHEMA}.`)) {
      state =
        loadedState(changes, relation) ??
        (await rawContent(connection, relation, ((rawColumns ??= await columnsByRelation(connection, SOURCE_SCHEMA)).get(relation) ?? []).map((column) => column.name)));
    } else if (views.has(relation)) {
      // a view whose query could not be read back: its build's fingerprint, which follows everything beneath it
      state = `${built.get(relation) ?? 'unbuilt'}${generation === undefined ? '' : ` generation ${generation}`}`;
    } else if (relation.startsWith(`${SEEDS_SCHEMA}.`)) {
      // every build loads the seeds again: what they hold (a few rows each)
      state = await contentSignature(connection, relation).catch(() => 'missing');
    } else {
      // every write of a model moves its generation on; without one (written by an older fanlake), what its build recorded
      state = generation === undefined ? (built.get(relation) ?? 'unbuilt') : `generation ${generation}`;
    }
    states.set(relation, state);
    return state;
  };
  /** What a query reads, as states: the relations it names and the macros it calls. */
  const statesOf = async (query: Extract<ParsedSelect, { ok: true }>, within: ReadonlySet<string>): Promise<string | undefined> => {
    const called = query.functions.filter((call) => call.schema === MACRO_SCHEMA);
    if (called.some((call) => macros.readsRecords(call.name))) return undefined;
    const parts = called.length === 0 ? [] : [`macros=${macros.state}`];
    for (const relation of [...new Set(query.references.map((ref) => `${ref.schema}.${ref.table}`))].sort()) {
      const state = await stateOf(relation, within);
      if (state === undefined) return undefined;
      parts.push(`${relation}=${state}`);
    }
    return parts.join('\n');
  };
  /**
   * A view's declared `rows_of`, with what its rows rest on besides that relation's (its query,
   * the macros it calls), where its query reads that relation alone and no macro that reads
   * fanlake's records; else undefined.
   */
  const viewRowsOf = (view: string, rowsOf: RowsOf): { rowsOf: RowsOf; query: string; macros: string | null } | undefined => {
    const query = viewReads.get(view);
    if (!query?.ok) return undefined;
    const relations = new Set(query.references.map((ref) => `${ref.schema}.${ref.table}`.toLowerCase()));
    if (relations.size !== 1 || !relations.has(rowsOf.relation)) return undefined;
    // a snapshot sets a raw row's vanished flag without a new _run_id: a view that reads it changes unseen
    if (rowsOf.relation.startsWith(`${SOURCE_SCHEMA}.`) && views.get(view)!.toLowerCase().includes(VANISHED_COLUMN)) return undefined;
    const called = query.functions.filter((call) => call.schema === MACRO_SCHEMA);
    if (called.some((call) => macros.readsRecords(call.name))) return undefined;
    return { rowsOf, query: views.get(view)!, macros: called.length === 0 ? null : macros.state };
  };
  const out = new Map<string, TestInputs>();
  for (const test of tests) {
    const definition = hashOf(JSON.stringify([test.kind, test.severity, test.target ?? null, 'sql' in test ? test.sql : test.freshness]));
    if ('freshness' in test) {
      out.set(test.name, { definition, inputs: undefined, reads: [] });
      continue;
    }
    if (test.kind === 'custom') {
      const found = read.get(test.name);
      const reads = found?.ok ? [...new Set(found.references.map((ref) => `${ref.schema}.${ref.table}`))].sort() : [];
      const inputs = found?.ok ? await statesOf(found, new Set()) : undefined;
      const callsMacros = found?.ok && found.functions.some((call) => call.schema === MACRO_SCHEMA);
      out.set(test.name, { definition, inputs: inputs === undefined ? undefined : hashOf(inputs), reads, ...(callsMacros ? { callsMacros: true as const } : {}) });
      continue;
    }
    const rowsOf = test.rowsOf !== undefined && test.target !== undefined ? viewRowsOf(test.target.toLowerCase(), test.rowsOf) : undefined;
    const reads = [...new Set(test.reads ?? [])].sort();
    const parts: string[] = [];
    for (const relation of reads) {
      const state = await stateOf(relation);
      if (state === undefined) break;
      parts.push(`${relation}=${state}`);
    }
    const inputs = test.reads === undefined || parts.length < reads.length ? undefined : hashOf(parts.join('\n'));
    out.set(test.name, { definition: rowsOf === undefined ? definition : hashOf(JSON.stringify([definition, rowsOf])), inputs, reads, ...(rowsOf ? { rowsOf: rowsOf.rowsOf } : {}) });
  }
  const known = new Map([...states].filter((entry): entry is [string, string] => entry[1] !== undefined));
  return { tests: out, states: known, sessionFree };
}

/**
 * Every view of the warehouse, by relation in lower case: the query it runs, as DuckDB keeps it
 * (undefined where it cannot be read back), in the form {@link sessionFreeSql} gives it.
 */
async function readViews(connection: DuckDBConnection, sessionFree: SessionFreeTexts): Promise<Map<string, string | undefined>> {
  const rows = await queryRows(connection, `select lower(schema_name || '.' || view_name) as relation, sql from duckdb_views() where database_name = current_database() and not internal`);
  // `CREATE VIEW <schema>.<name> AS <query>;`: fanlake names its views without " AS " in them
  const queries = rows.map((row) => /^CREATE (?:OR REPLACE )?VIEW .*? AS (.*?);?\s*$/s.exec(String(row.sql))?.[1]);
  const read = await sessionFreeSql(connection, queries.filter((query): query is string => query !== undefined), sessionFree);
  return new Map(rows.map((row, at) => [String(row.relation), queries[at] === undefined ? undefined : read.get(queries[at])]));
}

/**
 * The macros of the warehouse: one state for them all (a query calling any runs again when any
 * changed), and whether a macro reads fanlake's own records in meta, itself or through the
 * macros it calls (`macros.model_built_at` reads the build state, which every build moves):
 * a query calling it always runs. The identity model's frozen statistics are not such records:
 * their rows are fixed for the model version the macro names, which is part of its text.
 */
async function readMacros(connection: DuckDBConnection, sessionFree: SessionFreeTexts): Promise<{ state: string; readsRecords: (name: string) => boolean }> {
  const rows = await queryRows(
    connection,
    `select function_name as name, function_type = 'table_macro' as is_table, coalesce(macro_definition, '') as definition
     from duckdb_functions() where database_name = current_database() and schema_name = $1`,
    [MACRO_SCHEMA],
  );
  // a scalar macro's definition is an expression: read back as a select of it
  const texts = rows.map((row) => (row.is_table === true || row.definition === '' ? String(row.definition) : `SELECT ${String(row.definition)}`));
  const read = await sessionFreeSql(connection, texts, sessionFree);
  const overloads = new Map<string, string[]>();
  rows.forEach((row, at) => overloads.set(String(row.name), [...(overloads.get(String(row.name)) ?? []), read.get(texts[at]!)!]));
  const definitions = new Map([...overloads].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, texts]) => [name, texts.sort().join('\n')]));
  const reading = new Map<string, boolean>();
  const readsRecords = (name: string): boolean => {
    const known = reading.get(name);
    if (known !== undefined) return known;
    reading.set(name, false);
    const definition = definitions.get(name) ?? '';
    const direct = [...definition.matchAll(/\bmeta\.(\w+)/gi)].some((match) => !match[1]!.toLowerCase().startsWith('identity_model_'));
    const through = [...definition.matchAll(/\bmacros\.(\w+)/gi)].some((match) => readsRecords(match[1]!.toLowerCase()));
    reading.set(name, direct || through);
    return direct || through;
  };
  return { state: hashOf([...definitions].map(([name, definition]) => `${name}=${definition}`).join('\n')), readsRecords };
}

/**
 * Each SQL text as DuckDB writes it back after a round trip through its serialized form. DuckDB
 * writes a view's or macro's query differently in the session that created it than after the
 * file is opened again (UNION nesting, quoted type names, a CTE's MATERIALIZED): both give the
 * same text after the round trip, so a state hashed from it does not depend on the session
 * that reads it (`run` checks on the build's open warehouse, `check` on a fresh open). A text
 * DuckDB cannot parse stays as it is. A text an earlier check turned is taken as it kept it
 * (`sessionFree`): the round trip of every macro's and view's text cost 0.1-0.2 s of each check.
 */
async function sessionFreeSql(connection: DuckDBConnection, texts: readonly string[], sessionFree: SessionFreeTexts): Promise<Map<string, string>> {
  const distinct = [...new Set(texts)];
  const hashes = new Map(distinct.map((text) => [text, hashOf(text)]));
  const out = new Map<string, string>();
  const turning: string[] = [];
  for (const text of distinct) {
    const hash = hashes.get(text)!;
    sessionFree.used.add(hash);
    const known = sessionFree.kept.get(hash) ?? sessionFree.turned.get(hash);
    if (known === undefined) turning.push(text);
    else out.set(text, known);
  }
  if (turning.length === 0) return out;
  const reader = await connection.runAndReadAll(
    `select list_transform($1::varchar[], text -> case when (json_serialize_sql(text)->>'error')::boolean then text else json_deserialize_sql(json_serialize_sql(text)) end) as texts`,
    [new DuckDBListValue(turning)],
  );
  const read = reader.getRowObjectsJson()[0]!.texts as string[];
  turning.forEach((text, at) => {
    out.set(text, String(read[at]));
    sessionFree.turned.set(hashes.get(text)!, String(read[at]));
  });
  return out;
}

/** The session-free texts kept by earlier checks, by the hash of the text; none before the first check that kept them. */
async function readSessionFreeSql(connection: DuckDBConnection): Promise<Map<string, string>> {
  const relation = await findBookkeeping(connection, 'session_free_sql');
  if (relation === undefined) return new Map();
  const rows = await queryRows(connection, `select text_hash, session_free from ${relation}`);
  return new Map(rows.map((row) => [String(row.text_hash), String(row.session_free)]));
}

/**
 * Keeps the texts this check turned anew for the next, and forgets those it did not use (views
 * and macros since replaced); writes nothing when it turned none. Call it in the transaction
 * that records the results, after `ensureBookkeeping`.
 */
export async function recordSessionFreeSql(connection: DuckDBConnection, sessionFree: SessionFreeTexts): Promise<void> {
  if (sessionFree.turned.size === 0) return;
  await insertRows(connection, `insert or replace into ${SESSION_FREE}`, '($1, $2)', [...sessionFree.turned]);
  await connection.run(`delete from ${SESSION_FREE} where not list_contains($1::varchar[], text_hash)`, [new DuckDBListValue([...sessionFree.used])]);
}

/**
 * What a raw table holds apart from its lineage: its row count and the sum of its rows'
 * hashes without `_run_id` and `_extracted_at`. Each load stamps the rows it re-reads with
 * its run (a ticketing run re-reads its lookback window), which changes no value a test
 * judges; one scan of the table, cheaper than running its tests again.
 */
async function rawContent(connection: DuckDBConnection, relation: string, columns: readonly string[]): Promise<string> {
  const table = relation.split('.').map(quoteIdent).join('.');
  const kept = columns.filter((name) => name !== RUN_ID_COLUMN && name !== EXTRACTED_AT_COLUMN);
  if (kept.length === 0) return 'missing';
  const [row] = await queryRows(connection, `select count(*)::varchar || ' ' || coalesce(sum(hash(${kept.map(quoteIdent).join(', ')}))::varchar, '') as content from ${table}`);
  return String(row!.content);
}

/** The last run of every test, by name, where it is kept; empty before the first `check` that kept them. */
export async function readCheckState(connection: DuckDBConnection): Promise<Map<string, LastCheck>> {
  const relation = await findBookkeeping(connection, 'check_state');
  if (relation === undefined) return new Map();
  const rows = await queryRows(connection, `select test_name, definition, inputs, check_run_id, checked_at::varchar as checked_at, result::varchar as result from ${relation}`);
  return new Map(
    rows.map((row) => [
      String(row.test_name),
      { definition: String(row.definition), inputs: String(row.inputs), checkRunId: String(row.check_run_id), checkedAt: String(row.checked_at), result: JSON.parse(String(row.result)) },
    ]),
  );
}

/**
 * Keeps the tests that ran in `checkRunId` as their last run; call it in the transaction that
 * records the results, after `ensureBookkeeping`.
 */
export async function recordCheckState(connection: DuckDBConnection, checkRunId: string, checkedAt: Date, ran: readonly { name: string; definition: string; inputs: string; result: Record<string, Json> }[]): Promise<void> {
  await insertRows(
    connection,
    `insert or replace into ${CHECKS}`,
    '($1, $2, $3, $4, cast($5 as timestamptz), cast($6 as json))',
    ran.map((test) => [test.name, test.definition, test.inputs, checkRunId, checkedAt.toISOString(), JSON.stringify(test.result)]),
  );
}

function hashOf(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
