import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { queryRows, quoteLiteral, withConnection } from '../../../src/core/duckdb.js';
import { FanlakeError } from '../../../src/core/errors.js';
import { sha256File } from '../../../src/core/atomic-file.js';
import { ParquetSpool } from '../../../src/extract/spool/parquet-spool.js';
import type { ParquetSpoolOptions } from '../../../src/extract/spool/parquet-spool.js';
import { newRunId, runDir } from '../../../src/raw-contract/index.js';

const EXTRACTED_AT = '2024-05-01T10:00:00.000Z';
const COLUMNS = {
  id: 'BIGINT',
  email: 'VARCHAR',
  external_id: 'VARCHAR',
  score: 'DOUBLE',
  active: 'BOOLEAN',
  prod_conf: 'JSON',
};

let dataDir: string;
const runId = newRunId(new Date('2024-05-01T10:00:00Z'));

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'fanlake-spool-'));
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

function spool(options: Partial<ParquetSpoolOptions> = {}): ParquetSpool {
  return new ParquetSpool({
    dataDir,
    source: 'ticketing',
    resource: 'users',
    runId,
    extractedAt: EXTRACTED_AT,
    columns: COLUMNS,
    ...options,
  });
}

async function query(sql: string) {
  return withConnection(':memory:', (connection) => queryRows(connection, sql));
}

function parts(): string {
  return quoteLiteral(join(runDir(dataDir, { source: 'ticketing', resource: 'users', runId }), '*.parquet'));
}

describe('ParquetSpool', () => {
  it('keeps values exactly as sent: nested JSON, nulls, unicode, whitespace', async () => {
    const records = [
      {
        id: 1,
        email: '  Anna@Example.COM \t',
        external_id: 42,
        score: 1.25,
        active: true,
        prod_conf: { tiers: [1, { gold: null }], note: ' x ' },
      },
      { id: 2, email: 'Zoë 名前 😀\n', external_id: '0042', score: null, active: false, prod_conf: ['a', 2, null] },
      { id: 3, email: null, prod_conf: 'just a string' },
      { id: 4, email: '', external_id: ' ', prod_conf: null },
    ];
    const writer = spool();
    await writer.append(records.slice(0, 2));
    await writer.append(records.slice(2));
    const result = await writer.finish();

    expect(result.rows).toBe(4);
    expect(result.files).toHaveLength(1);
    const rows = await query(`select *, cast(_extracted_at as varchar) as extracted from read_parquet(${parts()}, hive_partitioning = false) order by id`);
    expect(rows.map((row) => row.email)).toEqual(['  Anna@Example.COM \t', 'Zoë 名前 😀\n', null, '']);
    // The `id` kind keeps a number as its decimal text, a string untouched.
    expect(rows.map((row) => row.external_id)).toEqual(['42', '0042', null, ' ']);
    expect(rows.map((row) => row.score)).toEqual([1.25, null, null, null]);
    expect(rows.map((row) => row.active)).toEqual([true, false, null, null]);
    expect(rows.map((row) => (row.prod_conf === null ? null : JSON.parse(String(row.prod_conf))))).toEqual([
      records[0].prod_conf,
      records[1].prod_conf,
      'just a string',
      null,
    ]);
    expect(new Set(rows.map((row) => row._run_id))).toEqual(new Set([runId]));
    expect(rows[0].extracted).toBe('2024-05-01 10:00:00+00');
  });

  it('spools bytes as received to the same rows as serialized records, escapes and spacing included', async () => {
    const sent = [
      '{ "id" : 1, "email":"Zo\\u00eb \\"q\\" \\\\", "external_id":42, "score":1.25, "prod_conf":{"a" : [1, {"b":null}]}, "extra":"x"}',
      '{"id":2,"email":null,"external_id":"0042","active":false,"prod_conf":"s"}',
    ];
    const records = sent.map((line) => JSON.parse(line) as Record<string, unknown>);
    const asSent = spool();
    await asSent.append(records, sent.map((line) => Buffer.from(line)));
    const result = await asSent.finish();
    expect(result.columns).toEqual({ ...COLUMNS, extra: 'JSON' });
    const columns = 'id, email, external_id, score, active, cast(prod_conf as varchar) as prod_conf, cast(extra as varchar) as extra';
    const rows = await query(`select ${columns} from read_parquet(${parts()}, hive_partitioning = false) order by id`);
    expect(rows[0]).toMatchObject({ email: 'Zoë "q" \\', external_id: '42', score: 1.25, extra: '"x"' });
    expect(JSON.parse(String(rows[0]!.prod_conf))).toEqual({ a: [1, { b: null }] });

    await rm(dataDir, { recursive: true, force: true });
    const serialized = spool();
    await serialized.append(records);
    await serialized.finish();
    expect(await query(`select ${columns} from read_parquet(${parts()}, hive_partitioning = false) order by id`)).toEqual(rows);
  });

  it('spools a chunk of several records as lines, and closes parts at the end of a page', async () => {
    const writer = spool({ rowsPerFile: 3 });
    await writer.appendLines(2, [Buffer.from(' {"id":1}\n{"id":2, "extra":[1]} ')], [{ id: 2, extra: [1] }]);
    await writer.append([{ id: 3 }, { id: 4 }], [Buffer.from('{"id":3}'), Buffer.from('{"id":4}')]);
    await writer.append([{ id: 5 }]);
    const result = await writer.finish();
    expect(result.files.map((file) => file.rows)).toEqual([4, 1]);
    const rows = await query(`select id, cast(extra as varchar) as extra_text from read_parquet(${parts()}, hive_partitioning = false, union_by_name = true) order by id`);
    expect(rows.map((row) => [row.id, row.extra_text])).toEqual([['1', null], ['2', '[1]'], ['3', null], ['4', null], ['5', null]]);
  });

  it('closes a part once its spooled bytes reach bytesPerFile, whatever its rows', async () => {
    const writer = spool({ rowsPerFile: 100, bytesPerFile: 20 });
    for (const id of [1, 2, 3, 4]) await writer.append([{ id }]); // 8 bytes each: {"id":1}
    const result = await writer.finish();
    expect(result.files.map((file) => file.rows)).toEqual([3, 1]);
  });

  it('spools a record whose bytes break lines between tokens as one line, its values as sent', async () => {
    const sent = '{\r\n  "id": 1,\n  "email": "a\\nb",\n  "prod_conf": {\n "a": [1,\n 2]\n  }\n}';
    const writer = spool();
    await writer.append([JSON.parse(sent) as Record<string, unknown>], [Buffer.from(sent)]);
    await writer.append([{ id: 2 }], [Buffer.from('{"id":\n2}')]);
    const result = await writer.finish();
    expect(result.rows).toBe(2);
    const rows = await query(`select id, email, cast(prod_conf as varchar) as prod_conf from read_parquet(${parts()}, hive_partitioning = false) order by id`);
    expect(rows).toEqual([
      { id: '1', email: 'a\nb', prod_conf: '{"a":[1,2]}' },
      { id: '2', email: null, prod_conf: null },
    ]);
  });

  it('fails the part, never lands it, when the bytes of a chunk do not hold its records', async () => {
    // What a page with a second "items" member would leave: a stray bracket among the items.
    const writer = spool();
    await writer.append([{ id: 1 }, { id: 2 }], [Buffer.from('{"id":1}],"items":[{"id":2}')]);
    await expect(writer.finish()).rejects.toMatchObject({ code: 'E_SPOOL_CONVERT' });
    await writer.abort();
    const counted = spool();
    await counted.append([{ id: 1 }, { id: 2 }], [Buffer.from('{"id":1}')]);
    await expect(counted.finish()).rejects.toMatchObject({ code: 'E_SPOOL_CONVERT' });
    await counted.abort();
  });

  it('writes the declared types even when every value is NULL', async () => {
    const writer = spool();
    await writer.append([{ id: 1 }, { id: 2, email: null, prod_conf: null }]);
    await writer.finish();
    const types = await query(`select column_name, column_type from (describe select * from read_parquet(${parts()}, hive_partitioning = false))`);
    expect(Object.fromEntries(types.map((row) => [row.column_name, row.column_type]))).toEqual({
      ...COLUMNS,
      _run_id: 'VARCHAR',
      _extracted_at: 'TIMESTAMP WITH TIME ZONE',
    });
  });

  it('keeps an undeclared key as an extra JSON column', async () => {
    const writer = spool();
    await writer.append([{ id: 1 }]);
    await writer.append([{ id: 2, loyalty: { level: 'gold', since: 2019 } }, { id: 3, loyalty: ' plain ' }]);
    const result = await writer.finish();

    expect(result.columns).toEqual({ ...COLUMNS, loyalty: 'JSON' });
    const rows = await query(`select id, loyalty, typeof(loyalty) as type from read_parquet(${parts()}, hive_partitioning = false) order by id`);
    expect(rows).toEqual([
      { id: '1', loyalty: null, type: 'JSON' },
      { id: '2', loyalty: '{"level":"gold","since":2019}', type: 'JSON' },
      { id: '3', loyalty: '" plain "', type: 'JSON' },
    ]);
  });

  it('splits into numbered parts, with checksums, and leaves no temporary file', async () => {
    const writer = spool({ rowsPerFile: 10 });
    for (let page = 0; page < 5; page += 1) {
      await writer.append(Array.from({ length: 5 }, (_, index) => ({ id: page * 5 + index })));
    }
    await writer.append([{ id: 100 }]);
    const result = await writer.finish();

    expect(result.rows).toBe(26);
    expect(result.files.map((file) => [file.path.split('/').pop(), file.rows])).toEqual([
      ['part-00000.parquet', 10],
      ['part-00001.parquet', 10],
      ['part-00002.parquet', 6],
    ]);
    for (const file of result.files) {
      expect(file.path.startsWith(`raw/ticketing/users/run=${runId}/`)).toBe(true);
      const path = join(dataDir, file.path);
      expect(file.sha256).toBe(await sha256File(path));
      expect(file.bytes).toBe((await stat(path)).size);
    }
    expect(await readdir(writer.dir)).toEqual(['part-00000.parquet', 'part-00001.parquet', 'part-00002.parquet']);
    const [count] = await query(`select count(*) as n, count(distinct id) as ids from read_parquet(${parts()}, hive_partitioning = false)`);
    expect(count).toEqual({ n: '26', ids: '26' });
  });

  it('writes one empty part for a run without rows, so the types still travel', async () => {
    const result = await spool().finish();
    expect(result.rows).toBe(0);
    expect(result.files).toHaveLength(1);
    const types = await query(`select column_name from (describe select * from read_parquet(${parts()}, hive_partitioning = false))`);
    expect(types.map((row) => row.column_name)).toEqual([...Object.keys(COLUMNS), '_run_id', '_extracted_at']);
  });

  it('quarantines items with their reason, counted in the result', async () => {
    const writer = spool();
    await writer.append([{ id: 1 }]);
    await writer.quarantine({ id: 'x', email: 5 }, 'id: expected number');
    await writer.quarantine('not even an object', 'expected object');
    const result = await writer.finish();

    expect(result.quarantined).toBe(2);
    const lines = (await readFile(join(writer.dir, 'quarantine.ndjson'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line));
    expect(lines).toEqual([
      { reason: 'id: expected number', item: { id: 'x', email: 5 } },
      { reason: 'expected object', item: 'not even an object' },
    ]);
    expect((await readdir(writer.dir)).sort()).toEqual(['part-00000.parquet', 'quarantine.ndjson']);
  });

  it('creates no quarantine file when nothing was quarantined', async () => {
    const writer = spool();
    await writer.append([{ id: 1 }]);
    const result = await writer.finish();
    expect(result.quarantined).toBe(0);
    expect(await readdir(writer.dir)).toEqual(['part-00000.parquet']);
  });

  it('refuses a field that differs from a column only by case', async () => {
    const writer = spool();
    await expect(writer.append([{ id: 1, Email: 'x' }])).rejects.toMatchObject({ code: 'E_SPOOL_COLUMN_CONFLICT' });
    await expect(writer.finish()).rejects.toBeInstanceOf(FanlakeError);
    await writer.abort();
  });

  it('a part that fails to convert while the next one fills fails the spool, and abort cleans up', async () => {
    const writer = spool({ rowsPerFile: 1 });
    // Bytes DuckDB cannot read as the declared BIGINT: the first part's conversion fails.
    await writer.append([{ id: 1 }], [Buffer.from('{"id":"not a number"}')]);
    const next = writer.append([{ id: 2 }, { id: 3 }]);
    const finished = writer.finish();
    const failures = await Promise.allSettled([next, finished]);
    expect(failures.some((outcome) => outcome.status === 'rejected' && (outcome.reason as FanlakeError).code === 'E_SPOOL_CONVERT')).toBe(true);
    await expect(finished).rejects.toBeInstanceOf(FanlakeError);
    await writer.abort();
    await expect(readdir(writer.dir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a failure of an append nobody waited for fails finish with that same error', async () => {
    const writer = spool({ rowsPerFile: 1 });
    // The first part's conversion runs in the background and fails; the next append's step
    // meets that failure after its caller has moved on (little is queued, so it does not wait).
    await writer.append([{ id: 1 }], [Buffer.from('{"id":"not a number"}')]);
    await writer.append([{ id: 2 }]);
    await expect(writer.finish()).rejects.toMatchObject({ code: 'E_SPOOL_CONVERT' });
    await writer.abort();
    await expect(readdir(writer.dir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('abort removes everything the spool wrote', async () => {
    const writer = spool({ rowsPerFile: 2 });
    await writer.append([{ id: 1 }, { id: 2 }, { id: 3 }]);
    await writer.quarantine({ id: 'bad' }, 'bad');
    await writer.abort();
    await expect(readdir(writer.dir)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
