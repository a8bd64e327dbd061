import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { loadWarehouse } from '../../src/load/load-warehouse.js';
import { tempDataDir, warehouseRows, writeRun } from './raw-fixtures.js';

let dataDir: string;
let warehouse: string;

beforeEach(async () => {
  dataDir = await tempDataDir();
  warehouse = join(dataDir, 'warehouse.duckdb');
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

/** A run summary as `extract` writes it into `$DATA/runs/`. */
async function writeSummary(runId: string, status: string, rows: number): Promise<void> {
  await mkdir(join(dataDir, 'runs'), { recursive: true });
  const result = { source: 'ticketing', resource: 'tickets', status, rows, files: 1, quarantined: 0, requests: 3, retries: 1, seconds: 0.5, messages: status === 'ok' ? [] : ['page 2 failed after 6 attempts'] };
  await writeFile(join(dataDir, 'runs', `${runId}.json`), JSON.stringify({ runId, startedAt: '2026-05-01T10:00:00.000Z', finishedAt: '2026-05-01T10:01:00.000Z', results: [result], skippedSources: [] }));
}

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
