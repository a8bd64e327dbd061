import type { QueryValue } from '../../sources/endpoint-declaration.js';
import type { SnapshotPaging } from '../../sources/resource-spec.js';
import { listAllPages } from '../paging/page-index-lister.js';

/** What a paging strategy needs of one request target: fetch a page, find its items, hand them on. */
export interface PageReader {
  /** The body of one request with the strategy's paging parameters added; undefined when there is nothing. */
  fetch(paging: Readonly<Record<string, QueryValue>>, page?: number): Promise<unknown>;
  items(body: unknown): readonly unknown[];
  /** Receives every page in order. */
  take(items: readonly unknown[], body: unknown): Promise<void>;
}

export interface PagingOptions {
  readonly pageSize: number;
  /** Most pages fetched ahead at once. */
  readonly wave: number;
}

/** Reads one request target to its end; returns the requests it made. */
export type PagingStrategy = (reader: PageReader, options: PagingOptions) => Promise<number>;

/**
 * The paging styles of snapshot endpoints, one small strategy each (the date-window style
 * of the ticketing API is `extractDateWindowResource`, which also keeps state).
 */
export const SNAPSHOT_PAGING: Readonly<Record<SnapshotPaging['style'], PagingStrategy>> = {
  'page-index': async (reader, { pageSize, wave }) => {
    const { requests } = await listAllPages({
      pageSize,
      wave,
      fetchPage: async (pageIndex) => {
        const body = await reader.fetch({ pageIndex, pageSize }, pageIndex);
        return { items: reader.items(body), body: (body ?? {}) as Record<string, unknown> };
      },
      onPage: ({ items, body }) => reader.take(items, body),
    });
    return requests;
  },
  none: async (reader) => {
    const body = await reader.fetch({});
    await reader.take(reader.items(body), body);
    return 1;
  },
};
