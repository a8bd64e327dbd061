import { describe, expect, it } from 'vitest';
import { queryRows, withConnection } from '../../src/core/duckdb.js';
import { recordCheckResults } from '../../src/models/checks/record-check-results.js';
import type { TestResult } from '../../src/models/checks/run-checks.js';

const RESULT: TestResult = { name: 'marts.dim_fan: unique(fan_id)', kind: 'unique', target: 'marts.dim_fan', severity: 'error', status: 'pass', failures: 0, sample: [], seconds: 0 };
const DAY = 86_400_000;

describe('recordCheckResults', () => {
  it('removes rows older than the retention as it records, never those of the check it records, and keeps all with 0', async () => {
    const now = Date.parse('2026-06-01T00:00:00Z');
    await withConnection(':memory:', async (connection) => {
      const runs = async () => (await queryRows(connection, 'select check_run_id, checked_at::varchar as at from meta.check_results order by checked_at')).map((row) => String(row.at).slice(0, 10));
      await recordCheckResults(connection, [RESULT], new Date(now - 200 * DAY), undefined, 90);
      await recordCheckResults(connection, [RESULT], new Date(now - 101 * DAY), undefined, 0);
      // With 0 nothing was removed; at the next check both are over 90 days old: only its own rows stay.
      expect(await runs()).toEqual(['2025-11-13', '2026-02-20']);
      await recordCheckResults(connection, [RESULT], new Date(now - 10 * DAY), undefined, 90);
      expect(await runs()).toEqual(['2026-05-22']);
      await recordCheckResults(connection, [RESULT], new Date(now), undefined, 90);
      expect(await runs()).toEqual(['2026-05-22', '2026-06-01']);
    });
  });
});
