import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { queryRows, withConnection } from '../../src/core/duckdb.js';
import { discoverRuns } from '../../src/load/discover-runs.js';
import { verifyRunFiles } from '../../src/load/verify-files.js';
import { eraseFromRawRuns } from '../../src/privacy/erase-raw-runs.js';
import { quarantinePath, readRunManifest, writeManifest } from '../../src/raw-contract/index.js';
import { tempDataDir, writeRun } from '../load/raw-fixtures.js';

describe('eraseFromRawRuns', () => {
  it('rewrites the files that hold matching rows and their manifest, which the load still verifies, and drops quarantine lines naming the person', async () => {
    const dataDir = await tempDataDir();
    const written = await writeRun(dataDir, {
      resource: 'users',
      extractedAt: '2026-01-01T00:00:00Z',
      columns: { id: 'BIGINT', email: 'VARCHAR' },
      primaryKey: ['id'],
      rowsPerFile: 2,
      pages: [[1, 2, 3, 4, 5].map((id) => ({ id, email: `fan${id}@example.no` }))],
    });
    const lines = [{ reason: 'bad', item: { email: 'FAN2@example.no' } }, { reason: 'bad', item: { email: 'fan9@example.no' } }];
    await writeFile(quarantinePath(dataDir, written), lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    await writeManifest(dataDir, { ...written, quarantined: 2 });
    const untouched = written.files.filter((file) => !file.path.includes('part-00000'));

    const erased = await withConnection(':memory:', async (connection) =>
      eraseFromRawRuns(connection, dataDir, await discoverRuns(dataDir), (_manifest, columns) => (columns.includes('id') ? 'id = 2' : undefined), ['fan2@example.no']),
    );
    expect(erased).toMatchObject({ runs: 1, files: 1, rows: 1, quarantined: 1 });

    const manifest = await readRunManifest(dataDir, written);
    expect(manifest).toMatchObject({ rows: 4, quarantined: 1 });
    expect(manifest.files.filter((file) => !file.path.includes('part-00000'))).toEqual(untouched);
    const paths = await verifyRunFiles(dataDir, manifest);
    const ids = await withConnection(':memory:', (connection) => queryRows(connection, `select list(id order by id) as ids from read_parquet([${paths.map((path) => `'${path}'`).join(', ')}])`));
    expect(ids).toEqual([{ ids: ['1', '3', '4', '5'] }]);
    expect(await readFile(quarantinePath(dataDir, written), 'utf8')).toBe(`${JSON.stringify(lines[1])}\n`);

    // Nothing left to erase: nothing rewritten.
    const again = await withConnection(':memory:', async (connection) => eraseFromRawRuns(connection, dataDir, await discoverRuns(dataDir), () => 'id = 2', ['fan2@example.no']));
    expect(again).toMatchObject({ runs: 0, files: 0, rows: 0, quarantined: 0 });
  });
});
