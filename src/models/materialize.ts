import type { DuckDBConnection } from '@duckdb/node-api';
import { inTransaction, queryRows, quoteIdent, quoteLiteral } from '../core/duckdb.js';
import { FanlakeError } from '../core/errors.js';
import type { ModelDefinition, SeedDefinition } from './discover-project.js';
import type { RelationKind } from '../warehouse/warehouse.js';
import { MODEL_ERROR_CODES } from './model-errors.js';
import { selectBody } from './sql-references.js';
import { ChangedKeys, recordWrittenInFull, ROW } from '../warehouse/changed-keys.js';


export interface MaterializeOptions {
  /**
   * What the warehouse holds under the model's name, as the build found it at its start: a
   * build is the warehouse's only writer and writes each model once, so one look at the
   * catalog serves every model (a look costs more than a small model's write).
   */
  existing: RelationKind | undefined;
  /** Rebuild incremental models from scratch instead of merging. */
  fullRefresh: boolean;
  /** SQL for an incremental model's first build when it reads itself (see ModelGraph). */
  firstBuildSql?: string;
}

/** Rows the build produced: the whole table, an incremental model's increment, none for a view. */
export interface MaterializeOutcome {
  rows?: number;
  /**
   * For a model written by a merge: whether any row was inserted, replaced or deleted, apart
   * from rows that differ only in its lineage columns (an incremental model built in full: always).
   */
  changed?: boolean;
}

/**
 * Writes one model. Every change to the warehouse happens in one transaction, so a failed
 * build leaves the previous view or table exactly as it was (DuckDB DDL is transactional:
 * `create or replace` inside a transaction that rolls back keeps the old object).
 */
export async function materializeModel(connection: DuckDBConnection, model: ModelDefinition, options: MaterializeOptions): Promise<MaterializeOutcome> {
  const target = `${quoteIdent(model.schema)}.${quoteIdent(model.name)}`;
  const { existing } = options;
  const body = selectBody(model.sql);
  switch (model.materialized) {
    case 'view':
      await inTransaction(connection, async () => {
        if (existing === 'table') await connection.run(`drop table ${target}`);
        await connection.run(`create or replace view ${target} as\n${body}\n`);
        await recordWrittenInFull(connection, model.relation);
      });
      return {};
    case 'table':
      if (model.uniqueKey.length === 0) return { rows: await replaceTable(connection, target, existing, body, model.relation, model) };
      if (existing === 'table' && !options.fullRefresh) return mergeKeyedTable(connection, model, target, body);
      // its first build, or --full-refresh: a change, as an incremental model's is (its children
      // are built after it anyway), so its rows need not be summed
      return { rows: await replaceTable(connection, target, existing, body, model.relation, model), changed: true };
    case 'incremental':
      if (existing !== 'table' || options.fullRefresh) {
        return { rows: await replaceTable(connection, target, existing, selectBody(options.firstBuildSql ?? model.sql), model.relation, model), changed: true };
      }
      return mergeIncrement(connection, model, target, body, selectBody(options.firstBuildSql ?? model.sql));
  }
}

/** `(create or replace) seeds.<name>` from the CSV, header row required, types sniffed by DuckDB. */
export async function loadSeed(connection: DuckDBConnection, seed: SeedDefinition): Promise<MaterializeOutcome> {
  const reader = await connection.runAndReadAll(
    `create or replace table ${quoteIdent('seeds')}.${quoteIdent(seed.name)} as select * from read_csv(${quoteLiteral(seed.path)}, header = true)`,
  );
  return { rows: countOf(reader.getRowObjectsJson()) };
}

/**
 * `relation`: the model's, for the changes a check reads; `model`: given, its rows are written in
 * key order, and its columns by the compression its header names.
 */
async function replaceTable(connection: DuckDBConnection, target: string, existing: RelationKind | undefined, body: string, relation: string, model?: ModelDefinition): Promise<number> {
  return inTransaction(connection, async () => {
    if (existing === 'view') await connection.run(`drop view ${target}`);
    const compressed = model !== undefined && Object.keys(model.compression).length > 0;
    const described = model !== undefined && (model.uniqueKey.length > 0 || compressed) ? await describe(connection, body) : [];
    const rows = await inKeyOrder(connection, body, model, described);
    let reader;
    if (compressed) {
      // a table created with its columns' compression, then filled: `create table as` takes none
      await connection.run(`create or replace table ${target} (${columnDefinitions(model, described)})`);
      reader = await connection.runAndReadAll(`insert into ${target}\n${rows}\n`);
    } else {
      reader = await connection.runAndReadAll(`create or replace table ${target} as\n${rows}\n`);
    }
    await recordWrittenInFull(connection, relation);
    return countOf(reader.getRowObjectsJson());
  });
}

/**
 * A model with a `unique_key` is written in key order. Why: DuckDB writes a table's rows in
 * parallel, and from a query of joins and groupings it leaves a row group or two part-filled;
 * the next checkpoint merges those (its vacuum), which rewrites them at the cost of writing the
 * table again. Sorted, the rows fill whole row groups, and the checkpoint has next to nothing
 * to do. A query DuckDB already writes in its own order (a batch insert: scans and projections,
 * as most fields tables are) fills whole row groups unsorted, and the sort would cost a tenth of
 * its write for nothing.
 */
async function inKeyOrder(connection: DuckDBConnection, body: string, model: ModelDefinition | undefined, described: readonly DescribedColumn[]): Promise<string> {
  if (model === undefined || model.uniqueKey.length === 0) return body;
  // the key as the output spells it: a key the output lacks fails here, in our words, and so
  // does a misnamed lineage column (only a keyed model has them), not at the first merge after
  const columns = described.map((column) => column.name);
  const keys = keyColumnsOf(model, columns);
  lineageColumnsOf(model, columns);
  if (await writtenInOrder(connection, body)) return body;
  return `select * from (\n${body}\n) order by ${keys.map(quoteIdent).join(', ')}`;
}

/** The table's columns as the model's output describes them, each with the compression its header names. */
function columnDefinitions(model: ModelDefinition, described: readonly DescribedColumn[]): string {
  const named = Object.keys(model.compression);
  const spelt = outputColumns(model, 'compression', named, described.map((column) => column.name));
  const methods = new Map(spelt.map((column, at) => [column, model.compression[named[at]!]!]));
  return described
    .map((column) => {
      const method = methods.get(column.name);
      return `${quoteIdent(column.name)} ${column.type}${method === undefined ? '' : ` using compression ${method}`}`;
    })
    .join(', ');
}

/** Whether DuckDB writes a table of these rows as a batch insert, row groups filled in order. */
async function writtenInOrder(connection: DuckDBConnection, body: string): Promise<boolean> {
  const [row] = await queryRows(connection, `explain (format json) create temp table __fanlake_write_plan as\n${body}\n`);
  const plan = JSON.parse(String(row!.explain_value)) as { name?: string }[];
  return plan[0]?.name === 'BATCH_CREATE_TABLE_AS';
}

/** The model's unique_key columns as its output spells them; a name it lacks is an error. */
function keyColumnsOf(model: ModelDefinition, columns: readonly string[]): string[] {
  return outputColumns(model, 'unique_key', model.uniqueKey, columns);
}

/** The model's lineage columns as its output spells them; a name it lacks is an error. */
function lineageColumnsOf(model: ModelDefinition, columns: readonly string[]): string[] {
  return outputColumns(model, 'lineage_columns', model.lineageColumns, columns);
}

/** The columns a header names, as the model's output spells them (names match case-insensitively). */
function outputColumns(model: ModelDefinition, header: string, names: readonly string[], columns: readonly string[]): string[] {
  const spelt = names.map((name) => columns.find((column) => column.toLowerCase() === name.toLowerCase()) ?? name);
  const missing = spelt.filter((column) => !columns.includes(column));
  if (missing.length > 0) throw incrementalError(model, `${header} column ${missing.join(', ')} is not in the model's output`);
  return spelt;
}

/**
 * An incremental model's new rows merged into its table by `unique_key`: rows its
 * `incremental_delete` condition holds are deleted first, then rows of new keys go in and rows
 * whose other columns changed replace what their key held; the table's other rows stay. Keys
 * match with `=`, so a null in the key could never find its row: it is an error, as is a key
 * is a change of columns (`--full-refresh` rebuilds). New rows that repeat a key (bad raw data
 * upstream, which the model's data tests report) cannot be merged: the model is built in full,
 * as its first build, so it holds what a rebuild would, as a table with a unique_key does. What
 * was computed is what this build cost.
 */
async function mergeIncrement(connection: DuckDBConnection, model: ModelDefinition, target: string, body: string, fullBody: string): Promise<MaterializeOutcome> {
  return withNewRows(connection, model, body, async (newRows) => {
    assertSameColumns(model, newRows.columns, (await describe(connection, target)).map((column) => column.name));
    const keys = keyColumnsOf(model, newRows.columns);
    const stats = await keyStats(connection, newRows.table, keys);
    if (stats.nullKeys > 0) throw incrementalError(model, `${stats.nullKeys} row(s) have a null in unique_key (${keys.join(', ')})`);
    if (stats.repeatedKeys > 0) return { rows: await replaceTable(connection, target, 'table', fullBody, model.relation, model), changed: true };
    const changed = await mergeByKey(connection, model, target, newRows, keys, { nullKeysMatch: false, deleteGoneKeys: false, incrementRows: stats.rowCount });
    return { rows: stats.rowCount, changed };
  });
}

/**
 * A table with a `unique_key`, written as the difference from what it holds: like a merge of
 * an increment, and the rows whose key is gone are deleted too, so the table ends as a rebuild
 * would leave it. Writing a large table costs more than comparing it, a later checkpoint
 * stores only the changed rows, and the merge tells the children whether anything changed
 * without summing the rows. A null in the key is a value like any other (null meets null, as
 * in a rebuild). The table is written in full when its columns or their types differ from the
 * new rows' (a parent's `select *` changed) or the new rows repeat a key, which a merge cannot
 * write (its data tests report it).
 */
async function mergeKeyedTable(connection: DuckDBConnection, model: ModelDefinition, target: string, body: string): Promise<MaterializeOutcome> {
  return withNewRows(connection, model, body, async (newRows) => {
    // written in full, a table is summed like any other (build-models.ts), so rows that come
    // back the same still leave its children as they are
    const replaceInFull = async (): Promise<MaterializeOutcome> => ({ rows: await replaceTable(connection, target, 'table', `select * from ${newRows.table}`, model.relation) });
    if (shapeOf(newRows.described) !== shapeOf(await describe(connection, target))) return replaceInFull();
    const keys = keyColumnsOf(model, newRows.columns);
    const stats = await keyStats(connection, newRows.table, keys);
    if (stats.repeatedKeys > 0) return replaceInFull();
    const changed = await mergeByKey(connection, model, target, newRows, keys, { nullKeysMatch: true, deleteGoneKeys: true });
    return { rows: stats.rowCount, changed };
  });
}

/** A model's rows computed into a temp table for a merge, with its columns as DuckDB describes them. */
interface NewRows {
  table: string;
  described: DescribedColumn[];
  columns: string[];
}

interface DescribedColumn {
  name: string;
  type: string;
}

/** Computes the model's rows into a temp table, hands them to `fn` and drops the table after. */
async function withNewRows<T>(connection: DuckDBConnection, model: ModelDefinition, body: string, fn: (newRows: NewRows) => Promise<T>): Promise<T> {
  const table = `temp.main.${quoteIdent(`__fanlake_increment__${model.name}`)}`;
  try {
    await connection.run(`create or replace temp table ${table} as\n${body}\n`);
    const described = await describe(connection, table);
    return await fn({ table, described, columns: described.map((column) => column.name) });
  } finally {
    await connection.run(`drop table if exists ${table}`);
  }
}

async function describe(connection: DuckDBConnection, relation: string): Promise<DescribedColumn[]> {
  return (await queryRows(connection, `describe ${relation}`)).map((row) => ({ name: String(row.column_name), type: String(row.column_type) }));
}

function shapeOf(columns: readonly DescribedColumn[]): string {
  return columns.map((column) => `${column.name} ${column.type}`).join(', ');
}

/** How many rows there are, how many hold a null in the key, and how many keys occur more than once. */
async function keyStats(connection: DuckDBConnection, table: string, keys: readonly string[]): Promise<{ rowCount: number; nullKeys: number; repeatedKeys: number }> {
  const [row] = await queryRows(
    connection,
    `select
         count(*) as row_count,
         count(*) filter (where ${keys.map((key) => `${quoteIdent(key)} is null`).join(' or ')}) as null_keys,
         (select count(*) from (select 1 from ${table} group by ${keys.map(quoteIdent).join(', ')} having count(*) > 1)) as repeated_keys
     from ${table}`,
  );
  return { rowCount: Number(row!.row_count), nullKeys: Number(row!.null_keys), repeatedKeys: Number(row!.repeated_keys) };
}

/**
 * Writes new rows into the table by key in one transaction: rows of new keys go in, rows whose
 * other columns changed replace their key's row, identical rows are left alone, and with
 * `deleteGoneKeys` the table's keys the new rows lack are deleted. `nullKeysMatch`: whether a
 * null in the key matches a null (`is not distinct from`) or nothing (`=`). Returns whether
 * the table changed, apart from rows that differ only in the model's lineage columns.
 */
async function mergeByKey(
  connection: DuckDBConnection,
  model: ModelDefinition,
  target: string,
  newRows: NewRows,
  keys: readonly string[],
  mode: { nullKeysMatch: boolean; deleteGoneKeys: boolean; incrementRows?: number },
): Promise<boolean> {
  const { columns } = newRows;
  const others = columns.filter((column) => !keys.includes(column));
  const equals = mode.nullKeysMatch ? 'is not distinct from' : '=';
  const sameKey = (left: string, right: string) => keys.map((key) => `${left}.${quoteIdent(key)} ${equals} ${right}.${quoteIdent(key)}`).join(' and ');
  const keyList = (side: string) => keys.map((key) => `${side}.${quoteIdent(key)}`).join(', ');
  const columnList = columns.map(quoteIdent).join(', ');
  const lineage = lineageColumnsOf(model, columns);
  const differenceName = quoteIdent(`__fanlake_difference__${model.name}`);
  const difference = `temp.main.${differenceName}`;
  const changedRows = await inTransaction(connection, async () => {
    // the keys each statement deletes or writes, for the next check (changed-keys.ts)
    const changedKeys = await ChangedKeys.start(connection, model.relation, target, keys);
    // an increment names every key it may change (a table's new rows name them all, changed or not)
    if (mode.incrementRows !== undefined) changedKeys.expect(mode.incrementRows);
    try {
      const deleted = model.incrementalDelete === undefined ? 0 : await changedKeys.deleteWhere(model.incrementalDelete);
      // One comparison of the new rows with the table finds every key the write changes: new
      // keys, rows whose other columns differ (is_substantive: in other than lineage columns,
      // which is what the children see as a change) and, with deleteGoneKeys, the stored keys
      // the new rows lack. The rows the write deletes and inserts are then found by key in
      // this small difference, not by comparing the tables again.
      await connection.run(
        `create or replace temp table ${differenceName} as\n${
          mode.deleteGoneKeys
            ? wholeDifferenceSql(newRows.table, target, keys, others, lineage, sameKey)
            : `select ${keyList('increment')},
             existing.${ROW},
             existing.__fanlake_stored is null as is_new,
             false as is_gone,
             existing.__fanlake_stored is null or (${differsIn(others.filter((column) => !lineage.includes(column)))}) as is_substantive,
         from ${newRows.table} as increment
         left join (select *, rowid as ${ROW}, true as __fanlake_stored from ${target}) as existing on ${sameKey('existing', 'increment')}
         where existing.__fanlake_stored is null or (${differsIn(others)})`
        }`,
      );
      const [counts] = await queryRows(
        connection,
        `select count(*) as changed, count(*) filter (where is_substantive) as substantive, count(*) filter (where not is_new) as stored from ${difference}`,
      );
      if (Number(counts!.changed) > 0) {
        changedKeys.keep(`select ${keys.map(quoteIdent).join(', ')} from ${difference}`, Number(counts!.changed));
        // A changed row is deleted and its new version inserted, not updated: DuckDB's
        // checkpoint stores again every column segment an update touched, so a few updates
        // spread over a large table cost a checkpoint of all of it, while deleted rows are
        // only marked and new ones appended.
        if (Number(counts!.stored) > 0) {
          // by rowid (stable within the transaction), not by key: a join on the key read the table's keys again (30-50 ms on a large table)
          await connection.run(`delete from ${target} where rowid in (select ${ROW} from ${difference} where not is_new)`);
        }
        await connection.run(
          `insert into ${target} (${columnList})
           select ${columns.map((column) => `increment.${quoteIdent(column)}`).join(', ')} from ${newRows.table} as increment
           semi join (select * from ${difference} where not is_gone) as difference on ${sameKey('increment', 'difference')}`,
        );
      }
      await changedKeys.finish();
      return deleted + Number(counts!.substantive);
    } finally {
      await connection.run(`drop table if exists ${difference}`);
      await changedKeys.close();
    }
  });
  return changedRows > 0;
}

/**
 * The difference of a table's new rows (all of them) from what it holds, as mergeByKey's: the
 * keys new, gone, or whose rows differ. Each side is reduced to its key and a hash of its other
 * columns (those a child sees, and the lineage columns apart) before they are joined: a join of
 * the whole rows held both tables' every column in its hash table (dim_fan: 0.14 s of its
 * 0.3 s). Equal values hash equal (DuckDB's grouping rests on it), so a changed row is missed
 * only if its hash collides with its stored row's, one chance in 2^64, the chance the build's
 * content signatures (sum of hashes) already take.
 */
function wholeDifferenceSql(
  table: string,
  target: string,
  keys: readonly string[],
  others: readonly string[],
  lineage: readonly string[],
  sameKey: (left: string, right: string) => string,
): string {
  const hashOf = (columns: readonly string[]) => (columns.length === 0 ? '0' : `hash(${columns.map(quoteIdent).join(', ')})`);
  const side = (relation: string, row: string) =>
    `select ${keys.map(quoteIdent).join(', ')}, ${hashOf(others.filter((column) => !lineage.includes(column)))} as __fanlake_values, ${hashOf(lineage)} as __fanlake_lineage, ${row} as ${ROW}, true as __fanlake_present from ${relation}`;
  const substantive = 'existing.__fanlake_present is null or increment.__fanlake_present is null or increment.__fanlake_values <> existing.__fanlake_values';
  // a key null on one side is null on the other (keys match as `is not distinct from`), so coalesce names either side's
  return `select ${keys.map((key) => `coalesce(increment.${quoteIdent(key)}, existing.${quoteIdent(key)}) as ${quoteIdent(key)}`).join(', ')},
             existing.${ROW},
             existing.__fanlake_present is null as is_new,
             increment.__fanlake_present is null as is_gone,
             ${substantive} as is_substantive,
         from (${side(table, 'null::bigint')}) as increment
         full join (${side(target, 'rowid')}) as existing on ${sameKey('existing', 'increment')}
         where ${substantive} or increment.__fanlake_lineage <> existing.__fanlake_lineage`;
}

/** Whether a stored row (`existing`) and a new one (`increment`) differ in any of `columns` (never, for none). */
function differsIn(columns: readonly string[]): string {
  return columns.length === 0 ? 'false' : columns.map((column) => `existing.${quoteIdent(column)} is distinct from increment.${quoteIdent(column)}`).join(' or ');
}

function assertSameColumns(model: ModelDefinition, columns: string[], existingColumns: string[]): void {
  const lower = (list: string[]) => new Set(list.map((column) => column.toLowerCase()));
  const now = lower(columns);
  const before = lower(existingColumns);
  const added = columns.filter((column) => !before.has(column.toLowerCase()));
  const removed = existingColumns.filter((column) => !now.has(column.toLowerCase()));
  if (added.length === 0 && removed.length === 0) return;
  const changes = [added.length ? `new column(s) ${added.join(', ')}` : '', removed.length ? `dropped column(s) ${removed.join(', ')}` : ''].filter(Boolean).join('; ');
  throw incrementalError(model, `the model's columns changed (${changes}); rebuild it with: fanlake build --full-refresh --select ${model.name}`);
}

function incrementalError(model: ModelDefinition, detail: string): FanlakeError {
  return new FanlakeError(MODEL_ERROR_CODES.incrementalMismatch, `${model.relation}: ${detail}`, { context: { model: model.relation } });
}

/** The `Count` row DuckDB returns for `create table ... as`, `insert` and `delete`. */
function countOf(rows: Record<string, unknown>[]): number {
  return Number(rows[0]?.Count ?? 0);
}
