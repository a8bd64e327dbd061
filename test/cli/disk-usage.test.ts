import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diskUsage, formatBytes } from '../../src/cli/disk-usage.js';
import { loadConfig } from '../../src/config/load-config.js';

describe('diskUsage', () => {
  it('counts each area of the data dir, quarantine files apart from their raw runs, and names what bounds it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fanlake-disk-'));
    const run = join(dataDir, 'raw', 'ticketing', 'tickets', 'run=20260601T000000Z-abcdef');
    mkdirSync(run, { recursive: true });
    writeFileSync(join(run, 'part-00000.parquet'), Buffer.alloc(3000));
    writeFileSync(join(run, 'quarantine.ndjson'), Buffer.alloc(500));
    writeFileSync(join(dataDir, 'warehouse.duckdb'), Buffer.alloc(12_000));
    writeFileSync(join(dataDir, 'warehouse.duckdb.wal'), Buffer.alloc(1000));
    mkdirSync(join(dataDir, 'listen', 'journal'), { recursive: true });
    writeFileSync(join(dataDir, 'listen', 'journal', '20260601T000000000Z.ndjson'), Buffer.alloc(200));
    mkdirSync(join(dataDir, 'schedule'));
    writeFileSync(join(dataDir, 'schedule', 'log.ndjson'), Buffer.alloc(100));
    const { config } = loadConfig({ env: { FANLAKE_DATA_DIR: dataDir, FANLAKE_SCHEDULE_LOG_RETENTION_DAYS: '30' }, cwd: dataDir });

    const areas = await diskUsage(config);
    expect(areas.map((a) => [a.area, a.bytes])).toEqual([
      ['raw runs', 3000],
      ['quarantine', 500],
      ['warehouse', 13_000],
      ['change journal', 200],
      ['schedule log', 100],
      ['reports', 0],
    ]);
    expect(areas.find((a) => a.area === 'schedule log')!.kept).toBe('rotated weekly, 30 days');
    expect([formatBytes(500), formatBytes(13_000_000), formatBytes(2.5e9)]).toEqual(['0.5 KB', '13.0 MB', '2.5 GB']);
  });
});
