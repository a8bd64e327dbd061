import { mkdir, open, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withConnection } from '../../src/core/duckdb.js';
import { loadWarehouse } from '../../src/load/load-warehouse.js';
import type { TableLoadResult } from '../../src/load/load-warehouse.js';
import { tempDataDir, warehouseRows, warehouseState, writeRun } from './raw-fixtures.js';

const TICKETS = { id: 'BIGINT', status: 'VARCHAR', price: 'DOUBLE', last_update: 'VARCHAR' };

let dataDir: string;
let warehouse: string;

beforeEach(async () => {
  dataDir = await tempDataDir();
  warehouse = join(dataDir, 'warehouse.duckdb');
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

function tickets(extractedAt: string, records: Record<string, unknown>[], resource = 'tickets') {
  return writeRun(dataDir, {
    resource,
    extractedAt,
    columns: TICKETS,
    primaryKey: ['id'],
    cursorField: 'last_update',
    pages: [records],
  });
}

function byTable(results: TableLoadResult[], table: string): TableLoadResult {
  const result = results.find((candidate) => candidate.table === table);
  if (result === undefined) throw new Error(`no result for ${table}`);
  return result;
}

describe('loadWarehouse', () => {
  it('keeps the latest version per key across overlapping runs and within a run', async () => {
    const first = await tickets('2024-05-01T10:00:00.000Z', [
      { id: 1, status: 'open', last_update: '2024-05-01T09:00:00.000Z' },
      { id: 2, status: 'open', last_update: '2024-05-01T09:00:00.000Z' },
      { id: 3, status: 'open', last_update: '2024-05-01T09:00:00.000Z' },
    ]);
    const [initial] = await loadWarehouse({ dataDir });
    expect(initial).toMatchObject({ table: 'raw.ticketing_tickets', status: 'ok', runs: [first.runId], rowsIn: 3, inserted: 3 });

    // Overlapping windows: id 2 comes twice in one run; the newer cursor wins.
    await tickets('2024-05-02T10:00:00.000Z', [
      { id: 2, status: 'paid', last_update: '2024-05-02T08:00:00.000Z' },
      { id: 2, status: 'refunded', last_update: '2024-05-02T09:30:00.000Z' },
      { id: 3, status: 'open', last_update: '2024-05-01T09:00:00.000Z' },
      { id: 4, status: 'open', price: 12.5, last_update: '2024-05-02T09:00:00.000Z' },
    ]);
    const [second] = await loadWarehouse({ dataDir });
    expect(second).toMatchObject({ status: 'ok', rowsIn: 4, inserted: 1, updated: 1, unchanged: 1, drift: [] });

    const rows = await warehouseRows(warehouse, 'select id, status, price from raw.ticketing_tickets order by id');
    expect(rows).toEqual([
      { id: '1', status: 'open', price: null },
      { id: '2', status: 'refunded', price: null },
      { id: '3', status: 'open', price: null },
      { id: '4', status: 'open', price: 12.5 },
    ]);
  });

  it('replaces a row whose values changed under the same cursor, and keeps one whose values and cursor (null too) stayed', async () => {
    await tickets('2024-05-01T10:00:00.000Z', [
      { id: 1, status: 'open', last_update: '2024-05-01T09:00:00.000Z' },
      { id: 2, status: 'open', last_update: '2024-05-01T09:00:00.000Z' },
      { id: 3, status: 'open', last_update: null },
      { id: 4, status: 'open', last_update: null },
    ]);
    await loadWarehouse({ dataDir });
    const again = await tickets('2024-05-02T10:00:00.000Z', [
      { id: 1, status: 'open', last_update: '2024-05-01T09:00:00.000Z' },
      { id: 2, status: 'paid', last_update: '2024-05-01T09:00:00.000Z' },
      { id: 3, status: 'open', last_update: null },
      { id: 4, status: 'paid', last_update: null },
    ]);
    const [result] = await loadWarehouse({ dataDir });
    expect(result).toMatchObject({ status: 'ok', rowsIn: 4, inserted: 0, updated: 2, unchanged: 2 });
    const rows = await warehouseRows(warehouse, 'select id, status, _run_id from raw.ticketing_tickets order by id');
    expect(rows).toEqual([1, 2, 3, 4].map((id) => ({ id: String(id), status: id % 2 === 0 ? 'paid' : 'open', _run_id: again.runId })));
  });

  it('on a full tie within a run keeps the version the API sent first, across part files', async () => {
    // Three rows per part file: id 2's versions are in different parts, with one cursor value.
    await writeRun(dataDir, {
      resource: 'tickets',
      extractedAt: '2024-05-01T10:00:00.000Z',
      columns: TICKETS,
      primaryKey: ['id'],
      cursorField: 'last_update',
      rowsPerFile: 3,
      pages: [
        [
          { id: 1, status: 'open', last_update: '2024-05-01T09:00:00.000Z' },
          { id: 3, status: 'open', last_update: '2024-05-01T09:00:00.000Z' },
          { id: 2, status: 'first', last_update: '2024-05-01T09:00:00.000Z' },
        ],
        [
          { id: 2, status: 'second', last_update: '2024-05-01T09:00:00.000Z' },
          { id: 4, status: 'open', last_update: '2024-05-01T09:00:00.000Z' },
        ],
      ],
    });
    await loadWarehouse({ dataDir });
    expect(await warehouseRows(warehouse, 'select id, status from raw.ticketing_tickets order by id')).toEqual([
      { id: '1', status: 'open' },
      { id: '2', status: 'first' },
      { id: '3', status: 'open' },
      { id: '4', status: 'open' },
    ]);
  });

  it('keeps fields named like the Parquet reader\'s own columns (file_index, file_row_number) as data', async () => {
    const columns = { id: 'BIGINT', file_index: 'BIGINT', file_row_number: 'VARCHAR', last_update: 'VARCHAR' };
    const run = (extractedAt: string, records: Record<string, unknown>[]) =>
      writeRun(dataDir, { resource: 'tickets', extractedAt, columns, primaryKey: ['id'], cursorField: 'last_update', pages: [records] });
    await run('2024-05-01T10:00:00.000Z', [
      { id: 1, file_index: 70, file_row_number: 'a', last_update: '2024-05-01T09:00:00.000Z' },
      { id: 2, file_index: 70, file_row_number: 'b', last_update: '2024-05-01T09:00:00.000Z' },
    ]);
    await run('2024-05-02T10:00:00.000Z', [{ id: 2, file_index: 71, file_row_number: 'c', last_update: '2024-05-02T09:00:00.000Z' }]);
    const [loaded] = await loadWarehouse({ dataDir });
    expect(loaded).toMatchObject({ status: 'ok', rowsIn: 3, inserted: 2 });
    expect(await warehouseRows(warehouse, 'select id, file_index, file_row_number from raw.ticketing_tickets order by id')).toEqual([
      { id: '1', file_index: '70', file_row_number: 'a' },
      { id: '2', file_index: '71', file_row_number: 'c' },
    ]);
  });

  it('merges two new runs in one load', async () => {
    await tickets('2024-05-01T10:00:00.000Z', [
      { id: 1, status: 'open', last_update: '2024-05-01T09:00:00.000Z' },
      { id: 2, status: 'open', last_update: '2024-05-01T09:00:00.000Z' },
    ]);
    await tickets('2024-05-02T10:00:00.000Z', [{ id: 2, status: 'paid', last_update: '2024-05-02T09:00:00.000Z' }]);
    const [result] = await loadWarehouse({ dataDir });
    expect(result).toMatchObject({ status: 'ok', rowsIn: 3, inserted: 2, updated: 0 });
    expect(result.runs).toHaveLength(2);
    const rows = await warehouseRows(warehouse, 'select id, status from raw.ticketing_tickets order by id');
    expect(rows).toEqual([
      { id: '1', status: 'open' },
      { id: '2', status: 'paid' },
    ]);
  });

  it('matches composite keys with NULL parts', async () => {
    const board = (extractedAt: string, records: Record<string, unknown>[]) =>
      writeRun(dataDir, {
        source: 'engagement',
        resource: 'top_positions',
        extractedAt,
        columns: { season_id: 'VARCHAR', interval_id: 'VARCHAR', demographic_value: 'VARCHAR', customerProfileId: 'VARCHAR', position: 'BIGINT' },
        primaryKey: ['season_id', 'interval_id', 'demographic_value', 'customerProfileId'],
        pages: [records],
      });
    await board('2024-05-01T10:00:00.000Z', [
      { season_id: 's1', interval_id: null, demographic_value: null, customerProfileId: 'c1', position: 1 },
      { season_id: 's1', interval_id: 'w1', demographic_value: null, customerProfileId: 'c1', position: 3 },
      { season_id: 's1', customerProfileId: 'c2', position: 2 },
    ]);
    await loadWarehouse({ dataDir });
    await board('2024-05-02T10:00:00.000Z', [
      { season_id: 's1', interval_id: null, demographic_value: null, customerProfileId: 'c1', position: 5 },
    ]);
    const [result] = await loadWarehouse({ dataDir });
    expect(result).toMatchObject({ table: 'raw.engagement_top_positions', inserted: 0, updated: 1 });
    const rows = await warehouseRows(
      warehouse,
      'select interval_id, customerProfileId, position from raw.engagement_top_positions order by all',
    );
    expect(rows).toEqual([
      { interval_id: 'w1', customerProfileId: 'c1', position: '3' },
      { interval_id: null, customerProfileId: 'c1', position: '5' },
      { interval_id: null, customerProfileId: 'c2', position: '2' },
    ]);
  });

  it('is a no-op the second time', async () => {
    await tickets('2024-05-01T10:00:00.000Z', [{ id: 1, status: 'open', last_update: '2024-05-01T09:00:00.000Z' }]);
    await loadWarehouse({ dataDir });
    const before = await warehouseState(warehouse);
    const again = await loadWarehouse({ dataDir });
    expect(again).toMatchObject([{ table: 'raw.ticketing_tickets', status: 'skipped', runs: [], inserted: 0, updated: 0 }]);
    expect(await warehouseState(warehouse)).toEqual(before);
  });

  it('keeps newer data when an older run is loaded after a newer one', async () => {
    await tickets('2024-05-02T10:00:00.000Z', [{ id: 1, status: 'paid', last_update: '2024-05-02T09:00:00.000Z' }]);
    await loadWarehouse({ dataDir });
    await tickets('2024-05-01T10:00:00.000Z', [
      { id: 1, status: 'open', last_update: '2024-05-01T09:00:00.000Z' },
      { id: 2, status: 'open', last_update: '2024-05-01T09:00:00.000Z' },
    ]);
    const [result] = await loadWarehouse({ dataDir });
    expect(result).toMatchObject({ status: 'ok', inserted: 1, updated: 0, unchanged: 1 });
    const rows = await warehouseRows(warehouse, 'select id, status from raw.ticketing_tickets order by id');
    expect(rows).toEqual([
      { id: '1', status: 'paid' },
      { id: '2', status: 'open' },
    ]);
  });

  it('without a cursor, the later extraction wins whatever the load order', async () => {
    const users = (extractedAt: string, status: string) =>
      writeRun(dataDir, {
        resource: 'users',
        extractedAt,
        columns: { id: 'VARCHAR', status: 'VARCHAR' },
        primaryKey: ['id'],
        pages: [[{ id: '7', status }]],
      });
    await users('2024-05-02T10:00:00.000Z', 'new');
    await loadWarehouse({ dataDir });
    await users('2024-05-01T10:00:00.000Z', 'old');
    await loadWarehouse({ dataDir });
    expect(await warehouseRows(warehouse, 'select status from raw.ticketing_users')).toEqual([{ status: 'new' }]);
  });

  it('rewrites only the changed rows of a repeated snapshot: the others take its lineage, the missing ones are flagged vanished', async () => {
    const profiles = (extractedAt: string, records: Record<string, unknown>[]) =>
      writeRun(dataDir, {
        source: 'engagement',
        resource: 'customer_profiles',
        extractedAt,
        columns: { id: 'BIGINT', name: 'VARCHAR', tags: 'VARCHAR[]' },
        primaryKey: ['id'],
        snapshot: true,
        pages: [records],
      });
    const rowsNow = () => warehouseRows(warehouse, 'select id, name, tags, _run_id, _extracted_at, _vanished_at from raw.engagement_customer_profiles order by id');
    await profiles('2024-05-01T10:00:00.000Z', [
      { id: 1, name: 'Kari', tags: ['a'] },
      { id: 2, name: 'Ola', tags: null },
      { id: 3, name: 'Per', tags: ['b'] },
    ]);
    await loadWarehouse({ dataDir });
    // a row rewritten (deleted and inserted) gets a new rowid; one whose lineage was updated keeps it
    const rowIds = async () => new Map((await warehouseRows(warehouse, 'select id, rowid as row from raw.engagement_customer_profiles')).map((row) => [row.id, row.row]));
    const before = await rowIds();
    const second = await profiles('2024-05-02T10:00:00.000Z', [
      { id: 1, name: 'Kari', tags: ['a'] },
      { id: 2, name: 'Ola', tags: ['c'] },
      { id: 4, name: 'Eva', tags: null },
    ]);
    const [merged] = await loadWarehouse({ dataDir });
    expect(merged).toMatchObject({ status: 'ok', rowsIn: 3, inserted: 1, updated: 1, unchanged: 1, vanished: 1 });
    const after = await rowIds();
    expect(after.get('1')).toBe(before.get('1'));
    expect(after.get('2')).not.toBe(before.get('2'));
    const secondAt = '2024-05-02 10:00:00+00';
    expect(await rowsNow()).toEqual([
      { id: '1', name: 'Kari', tags: ['a'], _run_id: second.runId, _extracted_at: expect.stringContaining(secondAt), _vanished_at: null },
      { id: '2', name: 'Ola', tags: ['c'], _run_id: second.runId, _extracted_at: expect.stringContaining(secondAt), _vanished_at: null },
      // last seen in the first snapshot, flagged by the first one that lacked it
      { id: '3', name: 'Per', tags: ['b'], _run_id: expect.not.stringContaining(second.runId), _extracted_at: expect.stringContaining('2024-05-01 10:00:00'), _vanished_at: expect.stringContaining(secondAt) },
      { id: '4', name: 'Eva', tags: null, _run_id: second.runId, _extracted_at: expect.stringContaining(secondAt), _vanished_at: null },
    ]);

    // a record that comes back unchanged loses its flag
    const third = await profiles('2024-05-03T10:00:00.000Z', [
      { id: 1, name: 'Kari', tags: ['a'] },
      { id: 2, name: 'Ola', tags: ['c'] },
      { id: 3, name: 'Per', tags: ['b'] },
      { id: 4, name: 'Eva', tags: null },
    ]);
    const [back] = await loadWarehouse({ dataDir });
    expect(back).toMatchObject({ status: 'ok', inserted: 0, updated: 1, unchanged: 3, vanished: 0 });
    const rows = await rowsNow();
    expect(rows.map((row) => [row.id, row._run_id, row._vanished_at])).toEqual(['1', '2', '3', '4'].map((id) => [id, third.runId, null]));
  });

  it('adds new columns and widens changed types, reporting each drift once', async () => {
    await writeRun(dataDir, {
      source: 'engagement',
      resource: 'members',
      extractedAt: '2024-05-01T10:00:00.000Z',
      columns: { id: 'BIGINT', points: 'BIGINT', nickname: 'VARCHAR', flags: 'JSON' },
      primaryKey: ['id'],
      pages: [[{ id: 1, points: 10, nickname: 'anna', flags: { vip: true } }]],
    });
    const [created] = await loadWarehouse({ dataDir });
    expect(created.drift).toEqual([]);

    // points became fractional, flags became text, nickname is gone, tier is new.
    await writeRun(dataDir, {
      source: 'engagement',
      resource: 'members',
      extractedAt: '2024-05-02T10:00:00.000Z',
      columns: { id: 'BIGINT', points: 'DOUBLE', flags: 'VARCHAR' },
      primaryKey: ['id'],
      pages: [[{ id: 2, points: 2.5, flags: 'none', tier: 'gold' }]],
    });
    const [drifted] = await loadWarehouse({ dataDir });
    expect(drifted.status).toBe('ok');
    expect(drifted.drift).toEqual([
      'added column tier JSON',
      'widened column points from BIGINT to DOUBLE',
      'widened column flags from JSON to VARCHAR',
    ]);

    await writeRun(dataDir, {
      source: 'engagement',
      resource: 'members',
      extractedAt: '2024-05-03T10:00:00.000Z',
      columns: { id: 'BIGINT', points: 'BIGINT', flags: 'JSON' },
      primaryKey: ['id'],
      pages: [[{ id: 3, points: 7, flags: [1], tier: 'silver' }]],
    });
    const [stable] = await loadWarehouse({ dataDir });
    expect(stable).toMatchObject({ status: 'ok', drift: [], inserted: 1 });

    const types = await warehouseRows(
      warehouse,
      `select column_name, data_type from duckdb_columns() where table_name = 'engagement_members' order by column_index`,
    );
    expect(types.map((row) => `${row.column_name} ${row.data_type}`)).toEqual([
      'id BIGINT',
      'points DOUBLE',
      'nickname VARCHAR',
      'flags VARCHAR',
      '_run_id VARCHAR',
      '_extracted_at TIMESTAMP WITH TIME ZONE',
      // a resource without a change cursor is a snapshot resource: the column comes with its first load
      '_vanished_at TIMESTAMP WITH TIME ZONE',
      'tier JSON',
    ]);
    const rows = await warehouseRows(warehouse, 'select id, points, nickname, flags, tier from raw.engagement_members order by id');
    expect(rows).toEqual([
      { id: '1', points: 10, nickname: 'anna', flags: '{"vip":true}', tier: null },
      { id: '2', points: 2.5, nickname: null, flags: 'none', tier: '"gold"' },
      { id: '3', points: 7, nickname: null, flags: '[1]', tier: '"silver"' },
    ]);
  });

  it('gives a snapshot table _vanished_at from its first load, a partial run included; a table with a change cursor never', async () => {
    // A partial run (snapshot false): nothing may be flagged, but the column is there for the models.
    await writeRun(dataDir, {
      source: 'engagement',
      resource: 'consents',
      extractedAt: '2024-05-01T10:00:00.000Z',
      columns: { id: 'VARCHAR', isRevoked: 'BOOLEAN' },
      primaryKey: ['id'],
      pages: [[{ id: '1', isRevoked: false }, { id: '2', isRevoked: true }]],
    });
    await tickets('2024-05-01T10:00:00.000Z', [{ id: 1, status: 'paid', price: 10, last_update: '2024-05-01T09:00:00Z' }]);
    const results = await loadWarehouse({ dataDir });
    expect(byTable(results, 'raw.engagement_consents')).toMatchObject({ status: 'ok', inserted: 2, vanished: 0 });
    const vanishedColumns = await warehouseRows(
      warehouse,
      `select table_name, data_type from duckdb_columns() where schema_name = 'raw' and column_name = '_vanished_at' order by table_name`,
    );
    expect(vanishedColumns).toEqual([{ table_name: 'engagement_consents', data_type: 'TIMESTAMP WITH TIME ZONE' }]);
    expect(await warehouseRows(warehouse, 'select id, _vanished_at from raw.engagement_consents order by id')).toEqual([
      { id: '1', _vanished_at: null },
      { id: '2', _vanished_at: null },
    ]);
  });

  it('refuses a file whose content does not match its sha256, and still loads the other tables', async () => {
    const bad = await tickets('2024-05-01T10:00:00.000Z', [{ id: 1, status: 'open', last_update: '2024-05-01T09:00:00.000Z' }]);
    await writeRun(dataDir, {
      resource: 'users',
      extractedAt: '2024-05-01T10:00:00.000Z',
      columns: { id: 'VARCHAR' },
      primaryKey: ['id'],
      pages: [[{ id: 'u1' }]],
    });
    // Same size, one byte flipped in the middle.
    const handle = await open(join(dataDir, bad.files[0].path), 'r+');
    const middle = Math.floor(bad.files[0].bytes / 2);
    const byte = Buffer.alloc(1);
    await handle.read(byte, 0, 1, middle);
    byte[0] ^= 0xff;
    await handle.write(byte, 0, 1, middle);
    await handle.close();

    const results = await loadWarehouse({ dataDir });
    const failed = byTable(results, 'raw.ticketing_tickets');
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatchObject({ code: 'E_LOAD_CHECKSUM' });
    expect(failed.error?.message).toContain(bad.files[0].path);
    expect(byTable(results, 'raw.ticketing_users')).toMatchObject({ status: 'ok', inserted: 1 });
    const loaded = await warehouseRows(warehouse, 'select source, resource from meta.load_ledger');
    expect(loaded).toEqual([{ source: 'ticketing', resource: 'users' }]);
  });

  it('rolls every table back when a later table fails inside the transaction', async () => {
    await tickets('2024-05-01T10:00:00.000Z', [{ id: 1, status: 'open', last_update: '2024-05-01T09:00:00.000Z' }]);
    await loadWarehouse({ dataDir });
    const before = await warehouseState(warehouse);

    await tickets('2024-05-02T10:00:00.000Z', [{ id: 2, status: 'open', last_update: '2024-05-02T09:00:00.000Z' }]);
    // Sorts after ticketing/tickets, and its key column is not in its files: fails mid-load.
    await writeRun(dataDir, {
      resource: 'users',
      extractedAt: '2024-05-02T10:00:00.000Z',
      columns: { id: 'VARCHAR' },
      primaryKey: ['user_id'],
      pages: [[{ id: 'u1' }]],
    });
    const events: string[] = [];
    const results = await loadWarehouse({ dataDir, onEvent: (event) => events.push(event.type) });
    expect(events).toEqual(['load-started', 'table-merged', 'rolled-back']);
    expect(byTable(results, 'raw.ticketing_users')).toMatchObject({ status: 'failed', error: { code: 'E_LOAD_KEY' } });
    expect(byTable(results, 'raw.ticketing_tickets')).toMatchObject({
      status: 'failed',
      inserted: 0,
      error: { code: 'E_LOAD_ROLLED_BACK' },
    });
    expect(await warehouseState(warehouse)).toEqual(before);
  });
});

/** A run summary as `extract` writes it into `$DATA/runs/`. */
async function writeSummary(runId: string, status: string, rows: number): Promise<void> {
  await mkdir(join(dataDir, 'runs'), { recursive: true });
  const result = { source: 'ticketing', resource: 'tickets', status, rows, files: 1, quarantined: 0, requests: 3, retries: 1, seconds: 0.5, messages: status === 'ok' ? [] : ['page 2 failed after 6 attempts'] };
  await writeFile(join(dataDir, 'runs', `${runId}.json`), JSON.stringify({ runId, startedAt: '2026-05-01T10:00:00.000Z', finishedAt: '2026-05-01T10:01:00.000Z', results: [result], skippedSources: [] }));
}

describe('run records in meta', () => {
  it('records run summaries once each, with the raw tables a load changed, and failed runs that loaded nothing', async () => {
    const manifest = await writeRun(dataDir, {
      resource: 'tickets',
      extractedAt: '2026-05-01T10:00:00.000Z',
      columns: { id: 'BIGINT', last_update: 'VARCHAR' },
      primaryKey: ['id'],
      pages: [[{ id: 1, last_update: 'a' }, { id: 2, last_update: 'b' }]],
    });
    await writeSummary(manifest.runId, 'ok', 2);
    await loadWarehouse({ dataDir });

    expect(await warehouseRows(warehouse, `select run_id, status, rows::integer as rows, messages::varchar as messages from meta.extraction_runs`)).toEqual([
      { run_id: manifest.runId, status: 'ok', rows: 2, messages: '[]' },
    ]);
    expect(await warehouseRows(warehouse, `select table_name, row_count::integer as n, vanished_count::integer as vanished, newest_run_id from meta.raw_tables`)).toEqual([
      { table_name: 'raw.ticketing_tickets', n: 2, vanished: 0, newest_run_id: manifest.runId },
    ]);

    // A later extraction that failed left a summary but no raw run: load still records it, once.
    await writeSummary('20260502T100000Z-abcdef', 'failed', 0);
    await loadWarehouse({ dataDir });
    await loadWarehouse({ dataDir });
    expect(await warehouseRows(warehouse, `select run_id, status, messages->>0 as message from meta.extraction_runs order by run_id`)).toEqual([
      { run_id: manifest.runId, status: 'ok', message: null },
      { run_id: '20260502T100000Z-abcdef', status: 'failed', message: 'page 2 failed after 6 attempts' },
    ]);
  });

  it('records the error records of a summary written with structured errors, beside older ones that only had messages', async () => {
    await writeSummary('20260502T100000Z-abcdef', 'failed', 0);
    const error = { code: 'E_HTTP_GAVE_UP', message: 'GET /api/tickets gave up after 6 attempts', retryable: true, context: { source: 'ticketing', resource: 'tickets', window: '2026-05-01/2026-05-02', page: 2 } };
    const result = { source: 'ticketing', resource: 'tickets', status: 'partial', rows: 3, files: 1, quarantined: 0, requests: 4, retries: 5, seconds: 1, errors: [error], notes: ['1 records quarantined'] };
    const runId = '20260503T100000Z-abcdef';
    await writeFile(join(dataDir, 'runs', `${runId}.json`), JSON.stringify({ runId, startedAt: '2026-05-03T10:00:00.000Z', finishedAt: '2026-05-03T10:01:00.000Z', results: [result], skippedSources: [] }));
    await loadWarehouse({ dataDir });

    const rows = await warehouseRows(warehouse, `select run_id, status, messages::varchar as messages, errors::varchar as errors from meta.extraction_runs order by run_id`);
    expect(rows.map((row) => ({ ...row, errors: JSON.parse(String(row.errors)) }))).toEqual([
      { run_id: '20260502T100000Z-abcdef', status: 'failed', messages: '["page 2 failed after 6 attempts"]', errors: [] },
      { run_id: runId, status: 'partial', messages: '["1 records quarantined"]', errors: [error] },
    ]);
  });

  it('adds the errors column to a warehouse whose meta.extraction_runs predates it', async () => {
    await withConnection(warehouse, async (connection) => {
      await connection.run(`create schema meta`);
      await connection.run(`create table meta.extraction_runs (run_id varchar not null, started_at timestamptz not null, finished_at timestamptz not null, source varchar not null, resource varchar not null, status varchar not null, rows bigint not null, quarantined bigint not null, requests bigint not null, retries bigint not null, seconds double not null, messages json not null, recorded_at timestamptz not null)`);
      await connection.run(`insert into meta.extraction_runs values ('20260401T100000Z-abcdef', now(), now(), 'ticketing', 'tickets', 'ok', 1, 0, 1, 0, 1, '[]', now())`);
    });
    await writeSummary('20260502T100000Z-abcdef', 'failed', 0);
    await loadWarehouse({ dataDir });
    expect(await warehouseRows(warehouse, `select run_id, errors::varchar as errors from meta.extraction_runs order by run_id`)).toEqual([
      { run_id: '20260401T100000Z-abcdef', errors: '[]' },
      { run_id: '20260502T100000Z-abcdef', errors: '[]' },
    ]);
  });
});
