import { describe, expect, it } from 'vitest';
import { inLanes, laneCount } from '../../src/core/lanes.js';

describe('inLanes', () => {
  it('runs every item once, one per lane at a time, each lane taking the next item as it frees', async () => {
    const busy = new Set<string>();
    const took: Record<string, number[]> = { a: [], b: [] };
    // each item waits for the test to release it, so the order is the test's, not the clock's
    const release = new Map<number, () => void>();
    const running = inLanes(['a', 'b'], [1, 2, 3, 4], async (lane, item) => {
      expect(busy.has(lane)).toBe(false);
      busy.add(lane);
      took[lane]!.push(item);
      await new Promise<void>((resolve) => release.set(item, resolve));
      busy.delete(lane);
      return item * 10;
    });
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    await settle();
    expect(took).toEqual({ a: [1], b: [2] });
    release.get(2)!();
    await settle();
    expect(took).toEqual({ a: [1], b: [2, 3] });
    release.get(1)!();
    await settle();
    expect(took).toEqual({ a: [1, 4], b: [2, 3] });
    release.get(3)!();
    release.get(4)!();
    expect([...(await running).entries()].sort(([x], [y]) => x - y)).toEqual([[1, 10], [2, 20], [3, 30], [4, 40]]);
  });

  it('rejects once every lane has stopped, and starts no item after a failure', async () => {
    const started: number[] = [];
    let releaseSlow!: () => void;
    let slowDone = false;
    const running = inLanes(['a', 'b'], [1, 2, 3], async (_lane, item) => {
      started.push(item);
      if (item === 1) {
        await new Promise<void>((resolve) => (releaseSlow = resolve));
        slowDone = true;
        return item;
      }
      throw new Error(`item ${item} failed`);
    });
    const outcome = running.then(
      () => 'resolved',
      (error: Error) => error.message,
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([1, 2]);
    releaseSlow();
    expect(await outcome).toBe('item 2 failed');
    expect(slowDone).toBe(true);
    expect(started).toEqual([1, 2]);
  });

  it('uses one lane where DuckDB may use one thread, two otherwise', () => {
    expect(laneCount({ threads: 1 })).toBe(1);
    expect(laneCount({ threads: 8 })).toBe(2);
    expect(laneCount(undefined)).toBe(2);
  });
});
