import { createHash } from 'node:crypto';
import type { DuckDBConnection, Json } from '@duckdb/node-api';
import { insertRows, queryRows, quoteIdent } from '../../core/duckdb.js';
import { EXTRACTED_AT_COLUMN, RUN_ID_COLUMN } from '../../raw-contract/index.js';
import { bookkeepingRelation, findBookkeeping } from '../../warehouse/bookkeeping.js';
import { builtContents } from '../build-state.js';
import { SOURCE_SCHEMA } from '../discover-project.js';
import { META_SCHEMA } from '../../warehouse/meta-schema.js';
import { parseSelects } from '../sql-references.js';
import type { PlannedTest } from './plan-tests.js';
import type { ModelChanges } from './delta-tests.js';

/** Where each test's last run is kept, in the warehouse itself, beside the builds' state (warehouse/bookkeeping.ts). */
const CHECKS = bookkeepingRelation('check_state');

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
}

/** Each test's inputs, and the state of each relation read, as they enter the inputs. */
export interface CheckInputs {
  readonly tests: Map<string, TestInputs>;
  readonly states: ReadonlyMap<string, string>;
}

/**
 * Each test's definition and inputs. A test reads its target, the parent of a relationships
 * test, or for a custom test the tables its SQL names (asked of DuckDB's parser). A model's
 * state is what its children see of it in builds (its content signature, or its fingerprint,
 * from `meta.build_state`), a raw table's what it holds apart from lineage (`rawContent`):
 * a model rebuilt to the same rows, or a load that only saw records again, leaves its tests'
 * inputs as they were. A model's generation (models/changed-keys.ts) is part of its state:
 * a write the build state missed (a build killed after it) still runs its tests.
 */
export async function testInputs(connection: DuckDBConnection, tests: readonly PlannedTest[], changes: ReadonlyMap<string, ModelChanges>): Promise<CheckInputs> {
  const built = await builtContents(connection);
  let rawColumns: Map<string, string[]> | undefined;
  const states = new Map<string, string>();
  const stateOf = async (relation: string): Promise<string> => {
    const known = states.get(relation);
    if (known !== undefined) return known;
    const generation = changes.get(relation)?.generation;
    const state = relation.startsWith(`${SOURCE_SCHEMA}.`)
      ? await rawContent(connection, relation, (rawColumns ??= await columnsOfRawTables(connection)).get(relation) ?? [])
      : `${built.get(relation) ?? 'unbuilt'}${generation === undefined ? '' : ` generation ${generation}`}`;
    states.set(relation, state);
    return state;
  };
  const custom = tests.filter((test) => test.kind === 'custom' && 'sql' in test);
  const parsed = await parseSelects(connection, custom.map((test) => ('sql' in test ? test.sql : '')));
  const read = new Map(custom.map((test, at) => [test.name, parsed[at]!]));
  const out = new Map<string, TestInputs>();
  for (const test of tests) {
    const definition = hashOf(JSON.stringify([test.kind, test.severity, test.target ?? null, 'sql' in test ? test.sql : test.freshness]));
    if ('freshness' in test) {
      out.set(test.name, { definition, inputs: undefined, reads: [] });
      continue;
    }
    let relations: string[] | undefined;
    if (test.kind === 'custom') {
      const found = read.get(test.name);
      relations = found?.ok ? found.references.map((ref) => `${ref.schema}.${ref.table}`) : undefined;
    } else {
      relations = test.reads ? [...test.reads] : undefined;
    }
    // fanlake's own run records in meta change with every build and have no build state: such a test always runs
    if (relations === undefined || relations.some((relation) => relation.toLowerCase().startsWith(`${META_SCHEMA}.`))) {
      out.set(test.name, { definition, inputs: undefined, reads: relations ?? [] });
      continue;
    }
    const reads = [...new Set(relations)].sort();
    const parts: string[] = [];
    for (const relation of reads) parts.push(`${relation}=${await stateOf(relation)}`);
    out.set(test.name, { definition, inputs: hashOf(parts.join('\n')), reads });
  }
  return { tests: out, states };
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

/** The columns of every raw table, by `schema.name` in lower case: one look at the catalog for them all. */
async function columnsOfRawTables(connection: DuckDBConnection): Promise<Map<string, string[]>> {
  const rows = await queryRows(
    connection,
    `select lower(schema_name || '.' || table_name) as relation, column_name from duckdb_columns() where database_name = current_database() and schema_name = $1 order by column_index`,
    [SOURCE_SCHEMA],
  );
  const columns = new Map<string, string[]>();
  for (const row of rows) {
    const relation = String(row.relation);
    if (!columns.has(relation)) columns.set(relation, []);
    columns.get(relation)!.push(String(row.column_name));
  }
  return columns;
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
