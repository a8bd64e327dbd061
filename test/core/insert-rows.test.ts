import { describe, expect, it, vi } from 'vitest';
import { IN_MEMORY, insertRows, queryRows, withConnection } from '../../src/core/duckdb.js';

describe('insertRows', () => {
  it('writes every row with its casts and nulls, and nothing for no rows', async () => {
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

  it('stores the same values whether the rows travel as JSON or bound one value each', async () => {
    const row = '($1, $2, $3, $4, cast($5 as timestamptz), cast($6 as json), $7, $8)';
    const create = 'create table t (id integer, label varchar, share double, flag boolean, seen_at timestamptz, doc json, nothing varchar, anything varchar)';
    // text with quotes, a backslash, a newline and non-ASCII; an integer past 32 bits; a fraction; nulls
    const values = (n: number, mixed: number | string) => [n, n % 3 === 0 ? null : `it's "row" \\ ${n}\nø`, n % 2 === 0 ? null : n + 1 / 7, n % 4 === 0, new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(), JSON.stringify({ n, big: 2 ** 40 + n }), null, mixed];
    const read = (connection: Parameters<Parameters<typeof withConnection>[1]>[0]) =>
      queryRows(connection, 'select id, label, share, flag, seen_at::varchar as seen_at, doc::varchar as doc, nothing, anything, typeof(id) as id_type from t order by id');
    const mixed: Awaited<ReturnType<typeof read>>[] = [];
    const [asJson, bound] = await withConnection(IN_MEMORY, async (connection) => {
      await connection.run(create);
      const statements = vi.spyOn(connection, 'run');
      // one kind per column: carried as JSON (integers only in the last column)
      await insertRows(connection, 'insert into t', row, Array.from({ length: 50 }, (_, n) => values(n, 2 ** 33 + n)));
      const json = await read(connection);
      expect(statements.mock.calls.filter(([sql]) => sql.startsWith('insert')).map(([sql]) => /from_json/.test(sql))).toEqual([true]);
      await connection.run('delete from t');
      statements.mockClear();
      // the same rows with one fraction among the last column's integers: bound value by value
      await insertRows(connection, 'insert into t', row, Array.from({ length: 50 }, (_, n) => values(n, n === 49 ? 0.5 : 2 ** 33 + n)));
      expect(statements.mock.calls.filter(([sql]) => sql.startsWith('insert')).map(([sql]) => /from_json/.test(sql))).toEqual([false]);
      const boundRows = await read(connection);
      // whole numbers and fractions in a DOUBLE column the caller names: JSON again, the same values
      const mixedShare = (n: number) => [n, null, n % 2 === 0 ? n : n + 1 / 7, true, '2026-01-01T00:00:00Z', '{}', null, 'x'];
      for (const doubles of [[], [3]]) {
        await connection.run('delete from t');
        statements.mockClear();
        await insertRows(connection, 'insert into t', row, Array.from({ length: 10 }, (_, n) => mixedShare(n)), doubles);
        expect(statements.mock.calls.filter(([sql]) => sql.startsWith('insert')).map(([sql]) => /from_json/.test(sql))).toEqual([doubles.length > 0]);
        mixed.push(await read(connection));
      }
      return [json, boundRows];
    });
    expect(mixed[1]).toEqual(mixed[0]);
    expect(mixed[1]!.map((found) => found.share)).toEqual([0, 1 + 1 / 7, 2, 3 + 1 / 7, 4, 5 + 1 / 7, 6, 7 + 1 / 7, 8, 9 + 1 / 7]);
    expect(asJson.length).toBe(50);
    expect(asJson.slice(0, 49)).toEqual(bound.slice(0, 49));
    expect(asJson[1]).toEqual({ id: 1, label: 'it\'s "row" \\ 1\nø', share: 1 + 1 / 7, flag: false, seen_at: '2026-01-01 00:00:01+00', doc: JSON.stringify({ n: 1, big: 2 ** 40 + 1 }), nothing: null, anything: String(2 ** 33 + 1), id_type: 'INTEGER' });
    expect(bound[49]!.anything).toBe('0.5');
  });
});

