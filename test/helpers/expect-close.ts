import { expect } from 'vitest';

/** Within `share` of the expected value, or `floor` apart for small counts: for figures that pass through identity resolution. */
export function expectClose(actual: number, expected: number, share: number, floor = 0, what = ''): void {
  const allowed = Math.max(floor, Math.abs(expected) * share);
  expect(Math.abs(actual - expected), `${what}: ${actual} vs expected ${expected} (±${allowed})`).toBeLessThanOrEqual(allowed);
}
