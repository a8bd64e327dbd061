import { FanlakeError } from '../../core/errors.js';
import { type DateWindow, cutWindow, describeWindow, halve } from './date-window.js';
import { CODE } from '../../core/error-codes.js';

/** What the pager needs of a page as the API answered it; the caller's pages carry their items besides. */
export interface WindowPage {
  /** `count` of the response: how many records the window holds at that moment. */
  readonly count: number;
  /** How many items the page held. */
  readonly size: number;
  /** The page's first item (where it starts, and which record it is); undefined for an empty page. */
  readonly first: unknown;
}

export interface WindowPagerOptions<P extends WindowPage = WindowPage> {
  /** Fetches page `page` (API numbering) of a window, oldest first (`order=ASC`). */
  fetchPage(window: DateWindow, page: number): Promise<P>;
  /** Receives every page as it arrives (its items are written at once). */
  onPage(page: P, window: DateWindow): Promise<void>;
  /** Seconds of an item's cursor (last_update), to cut unstable windows where pages began. */
  cursorSecond(item: unknown): number | undefined;
  /** An item's primary key, to prove the pages of a pass are disjoint. */
  itemKey(item: unknown): string | undefined;
  pageBase: 0 | 1;
  pageSize: number;
  /**
   * Runs a page's fetch-and-write; a shared limiter here bounds how many pages are in
   * memory at once, so a slow disk slows the fetching instead of filling the heap.
   */
  schedule?: <T>(task: () => Promise<T>) => Promise<T>;
  /** Pages of one window fetched at once; default 8. */
  pagesInFlight?: number;
  /** Passes over one window that cannot be split further before giving up on it. */
  maxPasses?: number;
}

export interface WindowOutcome {
  readonly window: DateWindow;
  /** True when a pass over the window was provably consistent. */
  readonly complete: boolean;
  readonly requests: number;
  /** Passes that saw the window change and were redone or split. */
  readonly unstablePasses: number;
}

/** No window has more pages than this: a bound against a server whose count runs away. */
const MAX_PAGES_PER_WINDOW = 100_000;

/**
 * Reads every record of a date window despite changes while it is paged.
 *
 * Why this is sound: `date_end` is fixed in the past (before the run started), and a
 * record's last_update only moves forward, so while a run pages, records can leave a
 * window (they were changed; the next run picks them up above the high-water mark) but
 * none can enter it. The window's set only shrinks. If every page of a pass reports the
 * same `count`, the set did not change between the first and the last page (a shrink
 * lowers the count), so the pages were slices of one set and together hold all of it.
 * Comparing only the received total with the count could hide a skip (one record read
 * then gone, one unchanged record shifted past us); equal counts on every page cannot.
 * When the counts differ, the window is cut where its pages began (each part about one
 * page, read in one request, which is atomic) and read again; a one-second window that
 * keeps changing is re-read a bounded number of times, then reported incomplete.
 */
export async function pageWindow<P extends WindowPage>(window: DateWindow, options: WindowPagerOptions<P>): Promise<WindowOutcome[]> {
  const maxPasses = options.maxPasses ?? 5;
  let requests = 0;
  let unstablePasses = 0;
  for (let pass = 1; pass <= maxPasses; pass++) {
    const result = await readPass(window, options);
    requests += result.requests;
    if (result.stable) return [{ window, complete: true, requests, unstablePasses }];
    unstablePasses++;
    const parts = cutWindow(window, result.pageStarts);
    const split = parts.length > 1 ? parts : halve(window);
    if (split) {
      const outcomes = (await Promise.all(split.map((part) => pageWindow(part, options)))).flat();
      const [head, ...tail] = outcomes;
      return [{ ...head!, requests: head!.requests + requests, unstablePasses: head!.unstablePasses + unstablePasses }, ...tail];
    }
  }
  return [{ window, complete: false, requests, unstablePasses }];
}

interface PassResult {
  readonly stable: boolean;
  readonly requests: number;
  /** Cursor second of each page's first item: where to cut the window. */
  readonly pageStarts: number[];
}

async function readPass<P extends WindowPage>(window: DateWindow, options: WindowPagerOptions<P>): Promise<PassResult> {
  const { pageBase, pageSize } = options;
  const pageStarts: number[] = [];
  const firstKeys = new Map<string, number>();
  const take = async (page: P) => {
    const start = page.size > 0 ? options.cursorSecond(page.first) : undefined;
    if (start !== undefined) pageStarts.push(start);
    // Two pages starting with the same record mean the page numbering is off by one
    // (a one-based endpoint serving page 0 as page 1): counts would agree, data would not.
    // With different counts it is a shift under change, which the pass handles.
    const key = page.size > 0 ? options.itemKey(page.first) : undefined;
    if (key !== undefined && firstKeys.get(key) === page.count) {
      throw new FanlakeError(CODE.E_PAGE_BASE, `two pages of window ${describeWindow(window)} start with the same record: the page base (${pageBase}) is wrong for this endpoint`, {
        context: { window: describeWindow(window) },
      });
    }
    if (key !== undefined) firstKeys.set(key, page.count);
    // Only the count and size are kept: the items are written, and a window's pages must
    // not pile up in memory until the pass ends (nor while their bytes wait to be written).
    const kept = { count: page.count, received: page.size };
    await options.onPage(page, window);
    return kept;
  };
  const schedule = options.schedule ?? ((task) => task());
  const read = (page: number) => schedule(async () => take(await options.fetchPage(window, page)));
  const first = await read(pageBase);
  const pages = Math.max(1, Math.ceil(first.count / pageSize));
  if (pages > MAX_PAGES_PER_WINDOW) {
    throw new FanlakeError(CODE.E_PAGING_RUNAWAY, `the server reports ${first.count} records in window ${describeWindow(window)}: more than ${MAX_PAGES_PER_WINDOW} pages`, {
      context: { window: describeWindow(window) },
    });
  }
  // A few pages of each window in flight, not all of them queued at once: windows and
  // resources then share the connection pool fairly instead of first come, first served.
  const rest: { count: number; received: number }[] = [];
  let nextPage = pageBase + 1;
  const lastPage = pageBase + pages - 1;
  const worker = async () => {
    while (nextPage <= lastPage) rest.push(await read(nextPage++));
  };
  await Promise.all(Array.from({ length: Math.min(options.pagesInFlight ?? 8, pages - 1) }, worker));
  const received = [first, ...rest].reduce((sum, page) => sum + page.received, 0);
  const stable = rest.every((page) => page.count === first.count) && received === first.count;
  return { stable, requests: pages, pageStarts };
}
