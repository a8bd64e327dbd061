import { describe, expect, it } from 'vitest';
import { IN_MEMORY, insertRows, queryRows, withConnection } from '../../src/core/duckdb.js';

describe('insertRows', () => {
  it('writes every row with its casts and nulls, in statements of a thousand rows, and nothing for no rows', async () => {
    const rows = await withConnection(IN_MEMORY, async (connection) => {
      await connection.run('create table t (n integer, label varchar, seen_at timestamptz, doc json)');
      await insertRows(connection, 'insert into t', '($1, $2, cast($3 as timestamptz), cast($4 as json))', []);
      const many = Array.from({ length: 2_345 }, (_, n) => [n, n % 7 === 0 ? null : `row ${n}`, new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(), JSON.stringify({ n })]);
      await insertRows(connection, 'insert into t', '($1, $2, cast($3 as timestamptz), cast($4 as json))', many);
      return queryRows(
        connection,
        `select count(*)::integer as count, count(distinct n)::integer as distinct_n, count(label)::integer as labels, sum(n)::bigint::varchar as sum,
                max(seen_at)::varchar as latest, min(doc->>'n')::integer as first_doc, bool_and(label is null or label = 'row ' || n) as labels_match
         from t`,
      );
    });
    expect(rows).toEqual([
      { count: 2_345, distinct_n: 2_345, labels: 2_345 - 335, sum: String((2_344 * 2_345) / 2), latest: '2026-01-01 00:39:04+00', first_doc: 0, labels_match: true },
    ]);
  });
});
