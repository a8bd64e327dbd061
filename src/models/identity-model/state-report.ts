import type { DuckDBConnection } from '@duckdb/node-api';
import { readLastChurn } from './fan-churn.js';
import { readInForce } from './in-force.js';

/**
 * The identity model's state in a few lines, for `status` and `doctor`: the version in force,
 * a retrain the last build found due, and that build's fan_id churn. Read from `meta` alone
 * (nothing is computed), so a reader may ask; empty before the first build.
 */
export async function identityStateLines(connection: DuckDBConnection): Promise<string[]> {
  const inForce = await readInForce(connection);
  if (!inForce) return [];
  const lines = [`identity model version ${inForce.version} in force since ${inForce.appliedAt} (${inForce.appliedBy}: ${inForce.reason})`];
  const churn = await readLastChurn(connection);
  if (!churn) return lines;
  if (churn.retrainDue !== undefined && churn.modelVersion === inForce.version) {
    lines.push(`  a retrain is due: ${churn.retrainDue}; fanlake identity train shows what a new version would change, --apply puts it in force`);
  }
  const share = churn.recordsBefore === 0 ? 0 : churn.recordsMoved / churn.recordsBefore;
  lines.push(
    `  last build ${churn.buildId} (${churn.builtAt}): ${churn.fansAfter} fans; ${churn.recordsMoved} of ${churn.recordsBefore} records' fan_id moved (${(share * 100).toFixed(1)}%; warned above ${(churn.warnShare * 100).toFixed(1)}%), ${churn.fansMerged} fans merged, ${churn.fansSplit} split`,
  );
  return lines;
}
