import { describe, expect, it } from 'vitest';
import { Timeline } from '../../../src/simulator/store/timeline.js';

const START = Date.parse('2020-06-01T00:00:00Z');
const SIX_YEARS_MS = 6 * 365 * 86_400_000;

function positions(timeline: Timeline): Uint32Array {
  const order = new Uint32Array(timeline.count);
  for (let position = 0; position < order.length; position++) order[position] = timeline.at(position);
  return order;
}

describe('timeline', () => {
  it('orders records by last update, then index, within a second and across six years', () => {
    const lastUpdate = Float64Array.from([START + 1500, START + 1200, START, START + SIX_YEARS_MS, START + 1200, START + 999]);
    expect([...positions(new Timeline(lastUpdate))]).toEqual([2, 5, 1, 4, 0, 3]);
  });

  it('holds more than 4,194,304 records of one resource (scale 80 has 8M tickets)', () => {
    const n = 4_194_304 + 1000;
    // the last records are the earliest, so the order must tell the indices above 2^22 apart
    const lastUpdate = Float64Array.from({ length: n }, (_, i) => START + ((n - i) % 100_000) * 60_000 + (i % 7));
    const timeline = new Timeline(lastUpdate);
    const order = positions(timeline);
    let misplaced = 0;
    const seen = new Uint8Array(n);
    seen[order[0]!] = 1;
    for (let k = 1; k < n; k++) {
      const a = order[k - 1]!;
      const b = order[k]!;
      if (!(lastUpdate[a]! < lastUpdate[b]! || (lastUpdate[a] === lastUpdate[b] && a < b)) || seen[b]) misplaced++;
      seen[b] = 1;
    }
    expect(misplaced).toBe(0);
    expect(timeline.window(START, START + 60_000 - 1).end).toBeGreaterThan(0);
  });
});
