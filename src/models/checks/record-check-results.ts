import type { DuckDBConnection } from '@duckdb/node-api';
import { insertRows } from '../../core/duckdb.js';
import { newRunId } from '../../raw-contract/index.js';
import { ensureMetaSchema, META_SCHEMA } from '../../warehouse/meta-schema.js';
import type { TestResult } from './run-checks.js';

/**
 * Appends one `check` run's results to `meta.check_results` in one transaction, so the
 * data-quality report can show what otherwise only scrolls past, and removes the rows older
 * than `retentionDays` in the same transaction (never this run's). Returns the check run id.
 */
export async function recordCheckResults(
  connection: DuckDBConnection,
  results: readonly TestResult[],
  checkedAt: Date,
  /** More to write in the same transaction, knowing the check run's id (the tests' state). */
  alsoRecord?: (checkRunId: string) => Promise<void>,
  /** 0 or absent keeps every row. */
  retentionDays?: number,
): Promise<string> {
  const checkRunId = newRunId(checkedAt);
  await connection.run('begin transaction');
  try {
    await ensureMetaSchema(connection);
    await insertRows(
      connection,
      `insert into ${META_SCHEMA}.check_results`,
      '($1, cast($2 as timestamptz), $3, $4, $5, $6, $7, $8, $9, cast($10 as timestamptz), $11, $12, $13, $14)',
      results.map((result) => [
        checkRunId, checkedAt.toISOString(), result.name, result.kind, result.target ?? null, result.severity, result.status,
        result.failures, result.message ?? null, result.freshness?.latestAt ?? null, result.freshness?.ageHours ?? null,
        result.freshness?.warnAfterHours ?? null, result.freshness?.errorAfterHours ?? null, result.carriedFrom?.checkRunId ?? null,
      ]),
      // the hours, DOUBLE columns, may be whole or not
      [11, 12, 13],
    );
    await alsoRecord?.(checkRunId);
    if (retentionDays !== undefined && retentionDays > 0) {
      // A carried result repeats its row in each run, so removing old runs loses no current result.
      const cutoff = new Date(checkedAt.getTime() - retentionDays * 86_400_000).toISOString();
      await connection.run(`delete from ${META_SCHEMA}.check_results where checked_at < cast($1 as timestamptz) and check_run_id <> $2`, [cutoff, checkRunId]);
    }
    await connection.run('commit');
  } catch (error) {
    await connection.run('rollback').catch(() => undefined);
    throw error;
  }
  return checkRunId;
}
