import { describe, expect, it } from 'vitest';
import { Timeline } from '../../../src/simulator/store/timeline.js';

const START = Date.parse('2020-06-01T00:00:00Z');
const SIX_YEARS_MS = 6 * 365 * 86_400_000;

function positions(timeline: Timeline): number[] {
  return Array.from({ length: timeline.count }, (_, position) => timeline.at(position));
}

describe('timeline', () => {
  it('orders records by last update, then index, within a second and across six years', () => {
    const lastUpdate = Float64Array.from([START + 1500, START + 1200, START, START + SIX_YEARS_MS, START + 1200, START + 999]);
    expect(positions(new Timeline(lastUpdate))).toEqual([2, 5, 1, 4, 0, 3]);
  });

  it('holds more than 4,194,304 records of one resource (scale 80 has 8M tickets)', () => {
    const n = 4_194_304 + 1000;
    // the last records are the earliest, so the order must tell the indices above 2^22 apart
    const lastUpdate = Float64Array.from({ length: n }, (_, i) => START + ((n - i) % 100_000) * 60_000 + (i % 7));
    const timeline = new Timeline(lastUpdate);
    const order = positions(timeline);
    let misplaced = 0;
    for (let k = 1; k < n; k++) {
      const [a, b] = [order[k - 1]!, order[k]!];
      if (!(lastUpdate[a]! < lastUpdate[b]! || (lastUpdate[a] === lastUpdate[b] && a < b))) misplaced++;
    }
    expect(misplaced).toBe(0);
    expect(new Set(order).size).toBe(n);
    expect(timeline.window(START, START + 60_000 - 1).end).toBeGreaterThan(0);
  });
});
