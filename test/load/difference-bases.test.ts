import { describe, expect, it } from 'vitest';
import { splitByBase } from '../../src/load/difference-bases.js';
import type { DifferenceBase, Manifest } from '../../src/raw-contract/index.js';

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
