import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { queryRows, withConnection } from '../../src/core/duckdb.js';
import { dropTombstoned } from '../../src/privacy/drop-tombstoned.js';
import { addTombstones } from '../../src/privacy/tombstones.js';
import { fromDataRelative, readRunManifest } from '../../src/raw-contract/index.js';
import { tempDataDir, writeRun } from '../load/raw-fixtures.js';

describe('tombstones', () => {
  it('drop the rows of forgotten records and addresses from runs not loaded yet, and hold no address in clear', async () => {
    const dataDir = await tempDataDir();
    const users = await writeRun(dataDir, {
      resource: 'users',
      extractedAt: '2026-01-01T00:00:00Z',
      columns: { id: 'BIGINT', email: 'VARCHAR', last_update: 'VARCHAR' },
      primaryKey: ['id'],
      cursorField: 'last_update',
      pages: [[1, 2, 3].map((id) => ({ id, email: `fan${id}@example.no`, last_update: '2026-01-01' }))],
    });
    const participants = await writeRun(dataDir, {
      source: 'engagement',
      resource: 'participants',
      extractedAt: '2026-01-01T00:00:00Z',
      columns: { id: 'VARCHAR', emailAddress: 'VARCHAR' },
      primaryKey: ['id'],
      snapshot: true,
      pages: [[{ id: 'a', emailAddress: ' Fan2@Example.no' }, { id: 'b', emailAddress: 'fan3@example.no' }]],
    });
    await addTombstones(dataDir, { records: ['ticketing_user:2'], emails: ['fan2@example.no'], phones: ['+4790012345'] });
    const stored = await readFile(join(dataDir, 'privacy', 'tombstones.json'), 'utf8');
    expect(stored).not.toMatch(/fan2|90012345/);

    const dropped = await dropTombstoned(dataDir);
    expect(dropped.rows).toBe(2);
    expect([...dropped.byResource]).toEqual([['engagement/participants', 1], ['ticketing/users', 1]]);
    const ids = async (manifest: typeof users, column: string) =>
      withConnection(':memory:', async (connection) => {
        const files = (await readRunManifest(dataDir, manifest)).files.map((file) => `'${fromDataRelative(dataDir, file.path)}'`);
        return (await queryRows(connection, `select list(${column} order by ${column}) as ids from read_parquet([${files.join(', ')}])`))[0]!.ids;
      });
    expect(await ids(users, 'id')).toEqual(['1', '3']);
    expect(await ids(participants, 'id')).toEqual(['b']);
    expect((await dropTombstoned(dataDir)).rows).toBe(0);
  });
});
