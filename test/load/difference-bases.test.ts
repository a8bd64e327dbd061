import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { splitByBase } from '../../src/load/difference-bases.js';
import { loadWarehouse } from '../../src/load/load-warehouse.js';
import { type DifferenceBase, type Manifest, writeManifest } from '../../src/raw-contract/index.js';
import { tempDataDir, warehouseRows, writeRun } from './raw-fixtures.js';

const FILE = { path: 'raw/engagement/people/run=x/keys.parquet', rows: 1, bytes: 1, sha256: '0'.repeat(64) };

/** A run of engagement.people: whole, or a difference cut against `base` (null: one of an earlier fanlake, without a base). */
function run(runId: string, base?: DifferenceBase | null): Manifest {
  const at = '2026-06-01T00:00:00.000Z';
  return {
    version: 1, source: 'engagement', resource: 'people', runId, startedAt: at, finishedAt: at, extractedAt: at, primaryKey: ['id'], snapshot: true,
    ...(base === undefined ? {} : { keys: FILE, ...(base === null ? {} : { base }) }),
    columns: {}, files: [], rows: 0, quarantined: 0,
  };
}

const A = '20260601T000000Z-aaaaaa';
const B = '20260601T010000Z-bbbbbb';
const C = '20260601T020000Z-cccccc';
const D = '20260601T030000Z-dddddd';
const onA: DifferenceBase = { runId: A, loadedAt: '2026-06-01T00:05:00.000000Z', rows: 10 };

const split = (manifests: Manifest[], current: DifferenceBase | undefined) => {
  const { apply, skip } = splitByBase(manifests, current);
  return { apply: apply.map((manifest) => manifest.runId), skip: skip.map(({ manifest, warning }) => `${manifest.runId} ${warning.code}`) };
};

describe('splitByBase', () => {
  it('applies whole runs, and a difference onto the very state it was cut against', () => {
    expect(split([run(B, onA), run(C)], onA)).toEqual({ apply: [B, C], skip: [] });
  });

  it('skips a difference onto another state: an older or rebuilt warehouse, rows changed outside fanlake, or nothing loaded', () => {
    expect(split([run(B, onA)], { ...onA, runId: '20260531T230000Z-zzzzzz' }).skip).toEqual([`${B} E_LOAD_DIFFERENCE_BASE`]);
    expect(split([run(B, onA)], { ...onA, loadedAt: '2026-06-02T00:00:00.000000Z' }).skip).toHaveLength(1);
    expect(split([run(B, onA)], { ...onA, rows: 9 }).skip).toHaveLength(1);
    expect(split([run(B, onA)], undefined).skip).toHaveLength(1);
  });

  it('skips a difference that follows a run merged in the same load, and one without a base', () => {
    // C was cut against A loaded back then; B, merged first now, makes a state no manifest names.
    expect(split([run(B), run(C, onA)], onA)).toEqual({ apply: [B], skip: [`${C} E_LOAD_DIFFERENCE_BASE`] });
    expect(split([run(B, null), run(C)], onA)).toEqual({ apply: [C], skip: [`${B} E_LOAD_DIFFERENCE_BASE`] });
  });

  it('judges each difference alone: a skipped one does not change the state the next is checked against', () => {
    const onD: DifferenceBase = { runId: D, loadedAt: '2026-06-01T03:05:00.000000Z', rows: 12 };
    expect(split([run(B, onD), run(C, onA)], onA)).toEqual({ apply: [C], skip: [`${B} E_LOAD_DIFFERENCE_BASE`] });
  });
});

describe('a load with a difference onto another state', () => {
  it('leaves the table as it was, records the difference as skipped, asks for the resource whole, and never takes it again', async () => {
    const dataDir = await tempDataDir();
    const warehouse = join(dataDir, 'warehouse.duckdb');
    const people = (extractedAt: string, names: string[]) =>
      writeRun(dataDir, { source: 'engagement', resource: 'people', extractedAt, columns: { id: 'BIGINT', name: 'VARCHAR' }, primaryKey: ['id'], snapshot: true, pages: [names.map((name, id) => ({ id, name }))] });
    await people('2026-06-01T00:00:00.000Z', ['Ada', 'Grace']);
    expect((await loadWarehouse({ dataDir }))[0]).toMatchObject({ status: 'ok', inserted: 2 });

    // A difference cut against a load this warehouse never made (the one it was taken on was lost).
    const written = await people('2026-06-01T01:00:00.000Z', ['Ada', 'Grace Hopper']);
    const difference: Manifest = { ...written, keys: written.files[0]!, base: { runId: written.runId, loadedAt: '2026-06-01T00:30:00.000000Z', rows: 2 } };
    await writeManifest(dataDir, difference);
    const [result] = await loadWarehouse({ dataDir });
    expect(result).toMatchObject({ status: 'skipped', runs: [], skippedRuns: [written.runId], inserted: 0, updated: 0 });
    expect(result!.warnings!.map((warning) => warning.code)).toEqual(['E_LOAD_DIFFERENCE_BASE']);
    expect(await warehouseRows(warehouse, 'select name from raw.engagement_people order by id')).toEqual([{ name: 'Ada' }, { name: 'Grace' }]);
    expect(await warehouseRows(warehouse, 'select resource, run_id, code from meta.skipped_runs')).toEqual([{ resource: 'people', run_id: written.runId, code: 'E_LOAD_DIFFERENCE_BASE' }]);
    expect(JSON.parse(readFileSync(join(dataDir, 'state', 'engagement-snapshots.json'), 'utf8')).whole).toEqual({ people: expect.stringContaining(written.runId) });

    const [again] = await loadWarehouse({ dataDir });
    expect(again).toMatchObject({ status: 'skipped', runs: [] });
    expect(again!.skippedRuns).toBeUndefined();
  });
});
