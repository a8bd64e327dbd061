import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { queryRows, quoteLiteral, withConnection } from '../../src/core/duckdb.js';
import { ResourceSink } from '../../src/extract/resource-sink.js';
import { rawArrayItems } from '../../src/extract/spool/raw-items.js';
import { newRunId } from '../../src/raw-contract/index.js';

// 2^53 + 1: a JavaScript number cannot hold it, so only bytes spooled as received keep it.
const BIG = '9007199254740993';
const runStartedAt = new Date('2024-05-01T10:00:00Z');
const runId = newRunId(runStartedAt);
const spec = { source: 'ticketing', name: 'users', primaryKey: ['id'], cursorField: 'last_update', fields: { id: 'int', name: 'string', last_update: 'string' } } as const;

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'fanlake-sink-'));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

/** A page as the API sends it, accepted by a new sink and committed: the rows that landed and the quarantine. */
async function land(items: string[], options: { raw?: boolean } = {}) {
  const body = Buffer.from(`{"count":"${items.length}","page":"1","items":[${items.join(',\n')}]}`);
  const parsed = JSON.parse(body.toString('utf8')) as { items: unknown[] };
  const sink = new ResourceSink({ dataDir, runId, runStartedAt }, spec);
  const accepted = await sink.accept(parsed.items, options.raw === false ? undefined : rawArrayItems(body, 'items', parsed.items.length));
  const written = await sink.commit({ snapshot: false });
  const rows = await withConnection(':memory:', (connection) =>
    queryRows(connection, `select * exclude (_run_id, _extracted_at) from read_parquet(${quoteLiteral(join(sink.dir, '*.parquet'))}, hive_partitioning = false) order by name`),
  );
  const quarantine = written.quarantined > 0 ? (await readFile(join(sink.dir, 'quarantine.ndjson'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line)) : [];
  return { accepted, written, rows, quarantine };
}

describe('ResourceSink', () => {
  it('spools a page whose items are all valid as the bytes received, undeclared keys as JSON columns', async () => {
    const { accepted, written, rows } = await land([`{"id":${BIG},"name":"a","last_update":"2024-01-01"}`, `{"id":2,"name":"b","loyalty":{"level":"gold"}}`]);
    expect(accepted).toBe(2);
    expect(written.columns).toEqual({ id: 'BIGINT', name: 'VARCHAR', last_update: 'VARCHAR', loyalty: 'JSON' });
    expect(rows).toEqual([
      { id: BIG, name: 'a', last_update: '2024-01-01', loyalty: null },
      { id: '2', name: 'b', last_update: null, loyalty: '{"level":"gold"}' },
    ]);
  });

  it('quarantines an invalid item with its reason and spools each valid item as received', async () => {
    const { accepted, written, rows, quarantine } = await land([`{"id":${BIG},"name":"a"}`, '{"id":"x","name":"bad"}', '{"id":3,"name":"c","note":[1]}']);
    expect(accepted).toBe(2);
    expect(written.quarantined).toBe(1);
    expect(quarantine).toEqual([{ reason: expect.stringMatching(/^id: /), item: { id: 'x', name: 'bad' } }]);
    expect(rows).toEqual([
      { id: BIG, name: 'a', last_update: null, note: null },
      { id: '3', name: 'c', last_update: null, note: '[1]' },
    ]);
  });

  it('serializes the parsed items when no bytes are given', async () => {
    const { rows } = await land([`{"id":${BIG},"name":"a"}`], { raw: false });
    // What a round trip through a JavaScript number makes of it.
    expect(rows).toEqual([{ id: String(Number(BIG)), name: 'a', last_update: null }]);
  });
});
