import type { DuckDBConnection } from '@duckdb/node-api';
import { queryRows, quoteIdent } from '../core/duckdb.js';
import { FanlakeError } from '../core/errors.js';
import { EXTRACTED_AT_COLUMN, isLineageColumn, RUN_ID_COLUMN } from '../raw-contract/index.js';
import { tableColumns } from '../warehouse/warehouse.js';
import { batchSelect, type ColumnTypes, describeDrift, describeParquet, planSchema, positionsFromReader } from '../raw-contract/index.js';
import { CODE } from '../core/error-codes.js';

/** What to merge into one raw table. */
export interface TableMergeInput {
  schema: string;
  table: string;
  /** Key columns; NULL parts compare equal (`is not distinct from`). */
  primaryKey: readonly string[];
  /** The record's last-modified column; the newest value wins, then `_extracted_at`, then `_run_id`. */
  cursorField?: string;
  /** Absolute paths of the new Parquet files, already verified. */
  files: readonly string[];
}

export interface TableMergeOutcome {
  /** Rows read from the new files. */
  rowsIn: number;
  /** Keys new to the table. */
  inserted: number;
  /** Keys whose row was replaced by a newer version with different values. */
  updated: number;
  /** Keys of the batch whose row kept its values: the table had the same or a newer version. */
  unchanged: number;
  drift: string[];
}

// Session-private scratch relations (the batch a view, the others tables); replaced per table, dropped at the end.
const BATCH = 'temp.main._fanlake_batch';
const WINNERS = 'temp.main._fanlake_winners';
const SAME = 'temp.main._fanlake_same';
const CANDIDATES = 'temp.main._fanlake_same_candidates';
/** A batch row's position in the batch; NULL on a winner that is the table's own row. */
const POSITION = '_fanlake_position';
/** The rowid of the table row of a winner's key; NULL for a key new to the table. */
const ROW = '_fanlake_row';

/**
 * Merges new Parquet files into a raw table inside the caller's transaction: adapts the
 * table to the files' columns, keeps the newest version of each key from the batch and the
 * table together, then deletes the replaced rows and inserts the winners. A winner whose
 * values equal the row it replaces only brings its lineage (`_run_id`, `_extracted_at`):
 * a snapshot repeats nearly every row, and rewriting each one cost most of an incremental
 * load. Only the new files and the table rows sharing their keys are read, and only the
 * rows that changed are written, so the cost follows the new data.
 */
export async function mergeTable(connection: DuckDBConnection, input: TableMergeInput): Promise<TableMergeOutcome> {
  if (input.files.length === 0) return { rowsIn: 0, inserted: 0, updated: 0, unchanged: 0, drift: [] };
  const table = `${quoteIdent(input.schema)}.${quoteIdent(input.table)}`;
  const existing = await tableColumns(connection, input.schema, input.table);
  const files = [];
  for (const path of input.files) files.push({ path, columns: await describeParquet(connection, path) });
  const plan = planSchema(existing, files.map((file) => file.columns));
  const keys = resolveColumns(plan.target, input.primaryKey, input);
  const cursor = input.cursorField === undefined ? undefined : resolveColumns(plan.target, [input.cursorField], input)[0];
  await applySchema(connection, table, existing === undefined, plan);

  // No try/finally: on failure the caller rolls back, which drops these scratch relations too.
  // The batch is a view over the new files, read again where needed, not a copy of them: the
  // copy of a large first load or snapshot cost more than reading the files again. A copy only
  // where the rows are numbered by row_number(), which is only as stable as their order.
  const batchKind = positionsFromReader(files) ? 'view' : 'table';
  await connection.run(`create or replace temp ${batchKind} _fanlake_batch as\n${batchSelect(files, plan.target, POSITION)}`);
  await connection.run(winnersSql(table, keys, cursor));
  // Only a winner whose cursor equals its table row's can hold the same values: picking the
  // table rows of every winner read every column of about every row group of a large table
  // (0.4-0.6 s for the 991 tickets of a quiet hour whose last_update moved on, none the same),
  // while the cursor alone reads one column, and a new version mostly moves it on.
  const everyWinner = `(select ${POSITION}, ${ROW} from ${WINNERS} where ${POSITION} is not null)`;
  const compared = cursor === undefined || isLineageColumn(cursor) ? undefined : CANDIDATES;
  if (compared !== undefined) await connection.run(winnersEqualSql(CANDIDATES, everyWinner, table, [cursor!], []));
  const dataColumns = [...plan.target.keys()].filter((name) => !isLineageColumn(name));
  await connection.run(winnersEqualSql(SAME, compared ?? everyWinner, table, dataColumns, [RUN_ID_COLUMN, EXTRACTED_AT_COLUMN]));
  const counts = await countOutcome(connection);
  await connection.run(`
update ${table} as target
set ${RUN_ID_COLUMN} = same.${RUN_ID_COLUMN}, ${EXTRACTED_AT_COLUMN} = same.${EXTRACTED_AT_COLUMN}
from ${SAME} as same
where target.rowid = same.${ROW}`);
  await connection.run(`
delete from ${table}
where rowid in (
    select ${ROW} from ${WINNERS} where ${POSITION} is not null and ${ROW} is not null
    except
    select ${ROW} from ${SAME}
)`);
  // Every row of the batch a winner with new values (a first load, new keys only): all of them
  // go in, without the join that picks them, a large share of a first load.
  const everyRow = counts.inserted + counts.updated === counts.rowsIn;
  await connection.run(`
insert into ${table} by name
select batch.* exclude (${POSITION})
from ${BATCH} as batch
${
  everyRow
    ? ''
    : `semi join (
    select ${POSITION} from ${WINNERS} where ${POSITION} is not null
    except
    select ${POSITION} from ${SAME}
) as changed on changed.${POSITION} = batch.${POSITION}`
}`);
  await connection.run(`drop ${batchKind} ${BATCH}`);
  await connection.run(`drop table ${WINNERS}`);
  await connection.run(`drop table ${SAME}`);
  if (compared !== undefined) await connection.run(`drop table ${compared}`);
  return { ...counts, drift: describeDrift(plan) };
}

async function applySchema(
  connection: DuckDBConnection,
  table: string,
  create: boolean,
  plan: ReturnType<typeof planSchema>,
): Promise<void> {
  if (create) {
    // No PRIMARY KEY: key parts may be NULL (top_positions), and uniqueness is the merge's job.
    const columns = [...plan.target].map(([name, type]) => `    ${quoteIdent(name)} ${type}`);
    await connection.run(`create table ${table} (\n${columns.join(',\n')}\n)`);
    return;
  }
  for (const column of plan.added) {
    await connection.run(`alter table ${table} add column ${quoteIdent(column.name)} ${column.type}`);
  }
  for (const column of plan.widened) {
    await connection.run(`alter table ${table} alter column ${quoteIdent(column.name)} set data type ${column.to}`);
  }
}

/**
 * Every row of the batch and every table row with one of its keys compete per key; the
 * newest wins, and on a full tie the table's row stays (so reloading changes nothing). Only
 * the keys and the columns that order versions take part: one row per key, naming the
 * winner (its batch position, NULL when the table's row won) and the table's row (rowid).
 */
function winnersSql(table: string, keys: readonly string[], cursor: string | undefined): string {
  const partition = keys.map(quoteIdent).join(', ');
  const competing = [...new Set([...keys, ...(cursor === undefined ? [] : [cursor]), EXTRACTED_AT_COLUMN, RUN_ID_COLUMN])].map(quoteIdent).join(', ');
  const newest = [
    ...(cursor === undefined
      ? []
      : [`try_cast(${quoteIdent(cursor)} as timestamptz) desc nulls last`, `cast(${quoteIdent(cursor)} as varchar) desc nulls last`]),
    `${EXTRACTED_AT_COLUMN} desc nulls last`,
    `${RUN_ID_COLUMN} desc nulls last`,
    `${POSITION} nulls first`,
  ].join(',\n                ');
  return `
create or replace temp table _fanlake_winners as
with
    batch as (
        select ${competing}, ${POSITION}, null::bigint as ${ROW} from ${BATCH}
    ),
    current_rows as (
        select ${competing}, null::bigint as ${POSITION}, target.rowid as ${ROW}
        from ${table} as target
        semi join batch on ${keyMatch('target', 'batch', keys)}
    ),
    ranked as (
        select
            ${POSITION},
            row_number() over (
                partition by ${partition}
                order by
                ${newest}
            ) as _fanlake_rank,
            max(${ROW}) over (partition by ${partition}) as ${ROW}
        from (select * from current_rows union all select * from batch)
    )
select ${POSITION}, ${ROW}
from ranked
where _fanlake_rank = 1`;
}

/**
 * `into`: the winners of `winners` (position and table rowid) whose `columns` equal the table
 * row of their key, with the batch's `carried` columns. The table's rows are picked by rowid
 * before the join (a semi join), so the large side of the join is the few rows with a winner's
 * key, not the whole table, and only the columns compared are read.
 */
function winnersEqualSql(into: string, winners: string, table: string, columns: readonly string[], carried: readonly string[]): string {
  const equal = columns.map((name) => `batch.${quoteIdent(name)} is not distinct from target.${quoteIdent(name)}`).join(' and ');
  const read = columns.length === 0 ? '' : `, ${columns.map(quoteIdent).join(', ')}`;
  return `
create or replace temp table ${into} as
select winner.${POSITION}, winner.${ROW}${carried.map((name) => `, batch.${name}`).join('')}
from ${winners} as winner
inner join ${BATCH} as batch on batch.${POSITION} = winner.${POSITION}
inner join (
    select rowid as ${ROW}${read} from ${table}
    where rowid in (select ${ROW} from ${winners})
) as target on target.${ROW} = winner.${ROW}
where ${equal || 'true'}`;
}

async function countOutcome(connection: DuckDBConnection): Promise<Omit<TableMergeOutcome, 'drift'>> {
  const [row] = await queryRows(
    connection,
    `
select
    (select count(*) from ${BATCH}) as rows_in,
    (select count(*) from ${WINNERS}) as keys,
    (select count(*) from ${WINNERS} where ${POSITION} is not null and ${ROW} is null) as inserted,
    (select count(*) from ${WINNERS} where ${POSITION} is not null and ${ROW} is not null) - (select count(*) from ${SAME}) as updated`,
  );
  const inserted = Number(row.inserted);
  const updated = Number(row.updated);
  return { rowsIn: Number(row.rows_in), inserted, updated, unchanged: Number(row.keys) - inserted - updated };
}

function keyMatch(left: string, right: string, keys: readonly string[]): string {
  return keys.map((key) => `${left}.${quoteIdent(key)} is not distinct from ${right}.${quoteIdent(key)}`).join(' and ');
}

/** The table's spelling of each named column; a missing key column is an error, not a silent full-table key. */
function resolveColumns(target: ColumnTypes, names: readonly string[], input: TableMergeInput): string[] {
  const byFolded = new Map([...target.keys()].map((name) => [name.toLowerCase(), name]));
  return names.map((name) => {
    const found = byFolded.get(name.toLowerCase());
    if (found === undefined) {
      throw new FanlakeError(CODE.E_LOAD_KEY, `column ${name} of ${input.schema}.${input.table} is not in its files`, {
        context: { table: `${input.schema}.${input.table}`, column: name },
      });
    }
    return found;
  });
}
