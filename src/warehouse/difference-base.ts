import type { DuckDBConnection } from '@duckdb/node-api';
import { queryRows, quoteIdent } from '../core/duckdb.js';
import { type DifferenceBase, rawTableName } from '../raw-contract/index.js';
import { findBookkeeping } from './bookkeeping.js';
import { tableColumns } from './warehouse.js';

/**
 * The state of a resource's raw table as a snapshot difference names it (see
 * `DifferenceBase`): read by extract when it cuts a difference, and by load before it applies
 * one. Costs one ledger lookup and one row count. Undefined when no run of the resource is
 * loaded or its table is missing. `database`: the name the warehouse is attached under, when
 * it is not the connection's own.
 */
export async function readDifferenceBase(connection: DuckDBConnection, source: string, resource: string, database?: string): Promise<DifferenceBase | undefined> {
  const ledger = await findBookkeeping(connection, 'load_ledger', database);
  if (ledger === undefined) return undefined;
  // The runs of one load share its loaded_at and are merged oldest first: the newest id is the last merged.
  const [head] = await queryRows(
    connection,
    `select run_id, strftime(loaded_at at time zone 'UTC', '%Y-%m-%dT%H:%M:%S.%fZ') as loaded_at
     from ${ledger} where source = $1 and resource = $2 order by loaded_at desc, run_id desc limit 1`,
    [source, resource],
  );
  const { schema, table } = rawTableName(source, resource);
  if (head === undefined || (await tableColumns(connection, schema, table, database)) === undefined) return undefined;
  const within = database === undefined ? '' : `${quoteIdent(database)}.`;
  const [count] = await queryRows(connection, `select count(*) as n from ${within}${quoteIdent(schema)}.${quoteIdent(table)}`);
  return { runId: String(head.run_id), loadedAt: String(head.loaded_at), rows: Number(count!.n) };
}

/** True when two bases name the same state. */
export function sameBase(a: DifferenceBase, b: DifferenceBase | undefined): boolean {
  return b !== undefined && a.runId === b.runId && a.loadedAt === b.loadedAt && a.rows === b.rows;
}
