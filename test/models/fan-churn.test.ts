import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { compareFans, unchangedFans } from '../../src/models/identity-model/fan-churn.js';

/**
 * The churn of a build: records moved, fans merged and split. The comparison groups only the
 * fans a moved record left or joined; a fan that neither lost nor gained a record is never
 * merged or split, however many records it holds, so the counts are those of grouping all.
 */
async function withFans<T>(before: [string, string][], after: [string, string][], fn: (run: (sql: string) => Promise<unknown>, db: import('@duckdb/node-api').DuckDBConnection) => Promise<T>): Promise<T> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const values = (rows: [string, string][]) => rows.map(([record, fan]) => `('${record}', '${fan}')`).join(', ');
    await connection.run(`create table before_fans (record_key varchar, fan_id varchar); insert into before_fans values ${values(before)}`);
    await connection.run(`create table after_fans (record_key varchar, fan_id varchar); insert into after_fans values ${values(after)}`);
    return await fn((sql) => connection.run(sql), connection);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe('fan churn', () => {
  it('counts moved records, merged and split fans as grouping every record would', async () => {
    const before: [string, string][] = [
      ['a1', 'A'], ['a2', 'A'], // A and B merge into A
      ['b1', 'B'],
      ['c1', 'C'], ['c2', 'C'], ['c3', 'C'], // C splits: c3 leaves for a new fan
      ['d1', 'D'], ['d2', 'D'], // D stays
      ['e1', 'E'], // E is renamed F
      ['g1', 'G'], // gone
    ];
    const after: [string, string][] = [
      ['a1', 'A'], ['a2', 'A'], ['b1', 'A'],
      ['c1', 'C'], ['c2', 'C'], ['c3', 'H'],
      ['d1', 'D'], ['d2', 'D'],
      ['e1', 'F'],
      ['n1', 'N'], // new
    ];
    const churn = await withFans(before, after, (_run, db) => compareFans(db, 'before_fans', 'after_fans', 10));
    expect(churn).toMatchObject({ fansBefore: 6, fansAfter: 6, recordsBefore: 10, recordsAfter: 10, recordsMoved: 3, fansMerged: 1, fansSplit: 1 });
    expect(churn.examples.map((moved) => [moved.recordKey, moved.how])).toEqual([['b1', 'merge'], ['c3', 'split'], ['e1', 'renamed']]);

    // told the records a merge wrote (any superset of those that differ), it reads them and
    // their fans' records only, and counts the same
    for (const keys of [['b1', 'c3', 'e1', 'g1', 'n1'], ['b1', 'c3', 'e1', 'g1', 'n1', 'a1', 'd2']]) {
      const within = await withFans(before, after, async (run, db) => {
        await run(`create table changed as select unnest([${keys.map((key) => `'${key}'`).join(', ')}]) as record_key`);
        return compareFans(db, 'before_fans', 'after_fans', 10, 'changed');
      });
      expect(within).toEqual(churn);
    }
  });

  it('counts a build that left the fans as they were without comparing them', async () => {
    const fans: [string, string][] = [['a1', 'A'], ['a2', 'A'], ['b1', 'B']];
    const churn = await withFans(fans, fans, (_run, db) => unchangedFans(db, 'after_fans'));
    const compared = await withFans(fans, fans, (_run, db) => compareFans(db, 'before_fans', 'after_fans', 0));
    expect(churn).toEqual(compared);
  });
});
