import { describe, expect, it } from 'vitest';
import { cutWindow, halve, splitRange } from '../../../src/extract/paging/date-window.js';
import { type WindowPage, pageWindow } from '../../../src/extract/paging/window-pager.js';

/** A page as the pager sees it, with its items for the test to collect. */
type RecPage = WindowPage & { items: Rec[] };

interface Rec {
  id: string;
  second: number;
}

/** A server over a set that loses `leavePerPage` records (anywhere) after every page it serves. */
function shrinkingServer(records: Rec[], leavePerPage: number, seed = 1) {
  let live = [...records];
  let state = seed;
  const random = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648);
  const left = new Set<string>();
  return {
    left,
    async fetchPage(window: { from: number; to: number }, page: number, size = 10): Promise<RecPage> {
      const inWindow = live.filter((r) => r.second >= window.from && r.second <= window.to);
      const items = inWindow.slice((page - 1) * size, page * size);
      for (let k = 0; k < leavePerPage && live.length > 0; k++) {
        const victim = live[Math.floor(random() * live.length)]!;
        left.add(victim.id);
        live = live.filter((r) => r !== victim);
      }
      return { count: inWindow.length, size: items.length, first: items[0], items };
    },
  };
}

function records(n: number): Rec[] {
  return Array.from({ length: n }, (_, i) => ({ id: `r${i}`, second: 1000 + i * 3 }));
}

describe('pageWindow', () => {
  it('reads a stable window in one pass of ceil(count / size) requests', async () => {
    const server = shrinkingServer(records(95), 0);
    const seen: string[] = [];
    const outcomes = await pageWindow({ from: 0, to: 10_000 }, {
      fetchPage: (w, p) => server.fetchPage(w, p),
      onPage: async (page) => void seen.push(...page.items.map((i) => (i as Rec).id)),
      cursorSecond: (i) => (i as Rec).second,
      itemKey: (i) => (i as Rec).id,
      pageBase: 1,
      pageSize: 10,
    });
    expect(outcomes).toEqual([{ window: { from: 0, to: 10_000 }, complete: true, requests: 10, unstablePasses: 0 }]);
    expect(new Set(seen).size).toBe(95);
  });

  it('never misses a record that stayed, however the pages shift', async () => {
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const all = records(400);
      const server = shrinkingServer(all, 2, seed);
      const seen = new Set<string>();
      const outcomes = await pageWindow({ from: 0, to: 10_000 }, {
        fetchPage: (w, p) => server.fetchPage(w, p),
        onPage: async (page) => page.items.forEach((i) => seen.add((i as Rec).id)),
        cursorSecond: (i) => (i as Rec).second,
        itemKey: (i) => (i as Rec).id,
        pageBase: 1,
        pageSize: 10,
      });
      const stayed = all.filter((r) => !server.left.has(r.id));
      expect(stayed.filter((r) => !seen.has(r.id)), `seed ${seed}`).toEqual([]);
      expect(outcomes.every((o) => o.complete)).toBe(true);
      expect(outcomes.reduce((sum, o) => sum + o.unstablePasses, 0)).toBeGreaterThan(0);
    }
  });

  it('gives up on a one-second window that never stops changing, and says so', async () => {
    const crowd = Array.from({ length: 50 }, (_, i) => ({ id: `c${i}`, second: 5000 }));
    const server = shrinkingServer(crowd, 1);
    const outcomes = await pageWindow({ from: 5000, to: 5001 }, {
      fetchPage: (w, p) => server.fetchPage(w, p),
      onPage: async () => undefined,
      cursorSecond: (i) => (i as Rec).second,
      itemKey: (i) => (i as Rec).id,
      pageBase: 1,
      pageSize: 10,
      maxPasses: 3,
    });
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]!.complete).toBe(false);
    expect(outcomes[0]!.unstablePasses).toBe(3);
  });

  it('refuses a page numbering that serves the same page twice', async () => {
    const server = shrinkingServer(records(30), 0);
    await expect(
      pageWindow({ from: 0, to: 10_000 }, {
        // A one-based server asked from page 0: page 0 and page 1 are the same.
        fetchPage: (w, p) => server.fetchPage(w, Math.max(1, p)),
        onPage: async () => undefined,
        cursorSecond: (i) => (i as Rec).second,
        itemKey: (i) => (i as Rec).id,
        pageBase: 0,
        pageSize: 10,
      }),
    ).rejects.toMatchObject({ code: 'E_PAGE_BASE' });
  });

  it('refuses a runaway count', async () => {
    await expect(
      pageWindow({ from: 0, to: 10 }, {
        fetchPage: async () => ({ count: 1e12, size: 0, first: undefined }),
        onPage: async () => undefined,
        cursorSecond: () => undefined,
        itemKey: () => undefined,
        pageBase: 1,
        pageSize: 200,
      }),
    ).rejects.toMatchObject({ code: 'E_PAGING_RUNAWAY' });
  });
});

describe('date windows', () => {
  it('splits a range into windows that share their boundary seconds', () => {
    expect(splitRange(0, 25, 10)).toEqual([{ from: 0, to: 10 }, { from: 10, to: 20 }, { from: 20, to: 25 }]);
    expect(splitRange(5, 5, 10)).toEqual([{ from: 5, to: 5 }]);
    expect(splitRange(6, 5, 10)).toEqual([]);
  });

  it('cuts inside a window only, and halves down to two seconds', () => {
    expect(cutWindow({ from: 0, to: 100 }, [0, 40, 40, 70, 100, 150])).toEqual([{ from: 0, to: 40 }, { from: 40, to: 70 }, { from: 70, to: 100 }]);
    expect(halve({ from: 0, to: 10 })).toEqual([{ from: 0, to: 5 }, { from: 5, to: 10 }]);
    expect(halve({ from: 0, to: 1 })).toBeUndefined();
  });
});
