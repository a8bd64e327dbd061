import type { DuckDBConnection } from '@duckdb/node-api';
import { queryRows, quoteLiteral } from '../../core/duckdb.js';
import { ensureMetaSchema } from '../../warehouse/meta-schema.js';

/** Which identity model version `build` predicts with: the newest row (declared in warehouse/meta-schema.ts). */
export const IN_FORCE_TABLE = 'meta.identity_model_in_force';

/** Who puts a version in force; see docs/decisions.md "Identity keys move only when someone decides". */
export const APPLIED_BY = ['first build', 'identity train --apply', 'autoRetrain', 'adopted', 'identity train (preview)'] as const;
export type AppliedBy = (typeof APPLIED_BY)[number];

export interface InForce {
  version: number;
  appliedAt: string;
  appliedBy: AppliedBy;
  reason: string;
}

/** The version in force, or undefined when none was ever put in force (a new warehouse, or one of an older fanlake). Safe for readers: a warehouse without the table has none. */
export async function readInForce(connection: DuckDBConnection): Promise<InForce | undefined> {
  const exists = await queryRows(connection, `select 1 from duckdb_tables() where schema_name = 'meta' and table_name = 'identity_model_in_force'`);
  if (exists.length === 0) return undefined;
  const [row] = await queryRows(connection, `select model_version, cast(applied_at as varchar) as applied_at, applied_by, reason from ${IN_FORCE_TABLE} order by applied_at desc, model_version desc limit 1`);
  if (!row) return undefined;
  return { version: Number(row.model_version), appliedAt: String(row.applied_at), appliedBy: String(row.applied_by) as AppliedBy, reason: String(row.reason) };
}

/** Puts a stored version in force from now on. */
export async function putInForce(connection: DuckDBConnection, version: number, appliedBy: AppliedBy, reason: string): Promise<void> {
  await ensureMetaSchema(connection);
  await connection.run(`insert into ${IN_FORCE_TABLE} values (${Number(version)}, now(), ${quoteLiteral(appliedBy)}, ${quoteLiteral(reason)})`);
}
