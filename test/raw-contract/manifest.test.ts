import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fromDataRelative, isRunId, manifestPath, newRunId, parseRunDirName, readManifest, readRunManifest, runDir, writeManifest } from '../../src/raw-contract/index.js';
import type { Manifest } from '../../src/raw-contract/index.js';

let dataDir: string;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'fanlake-manifest-'));
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

function manifest(overrides: Partial<Manifest> = {}): Manifest {
  return {
    version: 1,
    source: 'ticketing',
    resource: 'tickets',
    runId: '20240501T100000Z-abc123',
    startedAt: '2024-05-01T10:00:00.000Z',
    finishedAt: '2024-05-01T10:05:00.000Z',
    extractedAt: '2024-05-01T10:00:00.000Z',
    primaryKey: ['id'],
    cursorField: 'last_update',
    snapshot: false,
    columns: { id: 'BIGINT', last_update: 'VARCHAR' },
    files: [{ path: 'raw/ticketing/tickets/run=20240501T100000Z-abc123/part-00000.parquet', rows: 2, bytes: 10, sha256: 'a'.repeat(64) }],
    rows: 2,
    quarantined: 0,
    ...overrides,
  };
}

describe('raw layout', () => {
  it('makes run ids that sort by start time', () => {
    const early = newRunId(new Date('2024-05-01T09:59:59.999Z'));
    const late = newRunId(new Date('2024-05-01T10:00:00.000Z'));
    expect(early).toMatch(/^20240501T095959Z-[0-9a-f]{6}$/);
    expect(isRunId(late)).toBe(true);
    expect(early < late).toBe(true);
    expect(parseRunDirName(`run=${late}`)).toBe(late);
    expect(parseRunDirName('run=latest')).toBeUndefined();
  });

  it('places runs under raw/<source>/<resource>/run=<id> and refuses unsafe names', () => {
    expect(runDir('/data', { source: 'engagement', resource: 'top_positions', runId: '20240501T100000Z-abc123' })).toBe(
      '/data/raw/engagement/top_positions/run=20240501T100000Z-abc123',
    );
    expect(() => runDir('/data', { source: '../x', resource: 'y', runId: '20240501T100000Z-abc123' })).toThrow(/source name/);
    expect(() => fromDataRelative('/data', 'raw/../../etc/passwd')).toThrow(/leaves the data dir/);
  });
});

describe('manifest', () => {
  it('round-trips and leaves no temporary file', async () => {
    const written = manifest();
    const path = await writeManifest(dataDir, written);
    expect(path).toBe(manifestPath(dataDir, written));
    expect(await readManifest(path)).toEqual(written);
    expect(await readdir(runDir(dataDir, written))).toEqual(['_manifest.json']);
  });

  it('refuses a manifest whose rows disagree with its files', async () => {
    await expect(writeManifest(dataDir, manifest({ rows: 3 }))).rejects.toMatchObject({ code: 'E_MANIFEST_INVALID' });
  });

  it('names the file when a manifest cannot be read', async () => {
    const path = join(dataDir, 'broken.json');
    await writeFile(path, '{"version": 2}');
    await expect(readManifest(path)).rejects.toMatchObject({ code: 'E_MANIFEST_INVALID', context: { path } });
    await writeFile(path, 'not json');
    await expect(readManifest(path)).rejects.toMatchObject({ code: 'E_MANIFEST_INVALID' });
  });

  it('reads the manifest of a run from its folder, and refuses one that names another run', async () => {
    const written = manifest();
    await writeManifest(dataDir, written);
    expect(await readRunManifest(dataDir, written)).toEqual(written);
    const moved = { ...written, runId: '20240502T100000Z-abc123' };
    await mkdir(runDir(dataDir, moved), { recursive: true });
    await rename(manifestPath(dataDir, written), manifestPath(dataDir, moved));
    const read = readRunManifest(dataDir, moved);
    await expect(read).rejects.toMatchObject({ code: 'E_MANIFEST_INVALID', context: { path: manifestPath(dataDir, moved) } });
    await expect(read).rejects.toThrow(`names run ticketing/tickets/${written.runId}`);
  });
});
