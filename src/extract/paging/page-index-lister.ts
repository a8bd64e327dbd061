import { FanlakeError } from '../../core/errors.js';
import { CODE } from '../../core/error-codes.js';

export interface IndexPage {
  readonly items: readonly unknown[];
  /** The whole response body, for linked members. */
  readonly body: Record<string, unknown>;
}

export interface PageIndexOptions {
  /** Fetches page `pageIndex` (zero-based). */
  fetchPage(pageIndex: number): Promise<IndexPage>;
  /** Receives pages in order. */
  onPage(page: IndexPage): Promise<void>;
  pageSize: number;
  /** Most pages fetched ahead at once; waves grow 1, 2, 4... up to this. */
  wave: number;
}

/** No list has more pages than this: a guard against a server that never ends a list. */
const MAX_PAGES = 1_000_000;

/**
 * Pages a zero-based `pageIndex` list to its end: a short or empty page ends it (the
 * engagement API has no count and its `links` are not paging links). Pages are fetched in
 * growing waves so small lists cost one request and large ones keep requests in flight;
 * pages after the end are fetched at most one wave too many and dropped. Each page is taken
 * as soon as it and the pages before it have arrived, not once its whole wave has: a wave
 * of eight parsed pages of profiles outlived several young-generation collections and was
 * copied to the old one.
 */
export async function listAllPages(options: PageIndexOptions): Promise<{ pages: number; requests: number }> {
  let next = 0;
  let requests = 0;
  for (let wave = 1; ; wave = Math.min(wave * 2, options.wave)) {
    const fetching: (Promise<IndexPage> | undefined)[] = [];
    for (let k = 0; k < wave; k++) {
      const page = options.fetchPage(next + k);
      // A later page may fail while an earlier one is awaited: handled here, its failure
      // still ends the list when its turn comes below.
      if (k > 0) page.catch(() => undefined);
      fetching.push(page);
    }
    requests += wave;
    for (let k = 0; k < wave; k++) {
      const page = await fetching[k]!;
      fetching[k] = undefined;
      await options.onPage(page);
      if (page.items.length < options.pageSize) {
        // The rest of the wave lies past the end: its answers are dropped once they are in.
        if (k + 1 < wave) await Promise.allSettled(fetching);
        return { pages: next + k + 1, requests };
      }
    }
    next += wave;
    if (next >= MAX_PAGES) throw new FanlakeError(CODE.E_PAGING_RUNAWAY, `a list did not end after ${MAX_PAGES} pages`);
  }
}
