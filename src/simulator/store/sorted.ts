/** Index of the first element greater than `value` in an ascending array. */
export function upperBound(sorted: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The segment holding `index`, given prefix offsets (`start[k]` is the first index of
 * segment k, ascending; empty segments repeat an offset): how records generated in groups
 * (tickets of a match, people of a profile) find their group without storing it.
 */
export function segmentOf(start: ArrayLike<number>, index: number): number {
  return upperBound(start, index) - 1;
}
