import type { DateWindow } from './date-window.js';

/**
 * Finds whether an endpoint numbers pages from 0 or 1 by reading pages 0 and 1 of one
 * window, two records each. A one-based endpoint serves page 0 as page 1, so the two
 * pages share records; a zero-based one returns disjoint pages. A record shifting under
 * change can move one record across, never make pages equal, so overlap decides.
 */
export async function detectPageBase(
  windows: readonly DateWindow[],
  fetchPage: (window: DateWindow, page: number, size: number) => Promise<{ count: number; items: readonly unknown[] }>,
  itemKey: (item: unknown) => string | undefined,
): Promise<0 | 1> {
  // The newest window is the likeliest to hold records.
  for (const window of [...windows].reverse()) {
    const zero = await fetchPage(window, 0, 2);
    if (zero.count === 0) continue;
    const one = await fetchPage(window, 1, 2);
    const first = new Set(zero.items.map(itemKey));
    return one.items.some((item) => first.has(itemKey(item))) ? 1 : 0;
  }
  return 0;
}
