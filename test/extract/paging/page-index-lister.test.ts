import { describe, expect, it } from 'vitest';
import { type IndexPage, listAllPages } from '../../../src/extract/paging/page-index-lister.js';

/** A list of `total` numbered items served in pages of `pageSize`. */
function pageOf(total: number, pageSize: number, pageIndex: number): IndexPage {
  const items = Array.from({ length: Math.max(0, Math.min(pageSize, total - pageIndex * pageSize)) }, (_, k) => pageIndex * pageSize + k);
  return { items, body: { pageIndex } };
}

describe('listAllPages', () => {
  it('takes the pages in order in growing waves and stops at the first short page', async () => {
    const fetched: number[] = [];
    const taken: number[] = [];
    const result = await listAllPages({
      pageSize: 10,
      wave: 4,
      fetchPage: async (index) => (fetched.push(index), pageOf(55, 10, index)),
      onPage: async (page) => void taken.push(...(page.items as number[])),
    });
    // Waves of 1, 2 and 4 pages: the short page 5 ends the list, page 6 was fetched and dropped.
    expect(fetched).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(taken).toEqual(Array.from({ length: 55 }, (_, k) => k));
    expect(result).toEqual({ pages: 6, requests: 7 });
  });

  it('takes a page as soon as it and those before it have arrived, before the rest of its wave', async () => {
    const taken: number[] = [];
    let sawPageOne: () => void = () => undefined;
    const pageOneTaken = new Promise<void>((resolve) => (sawPageOne = resolve));
    await listAllPages({
      pageSize: 1,
      wave: 2,
      // Page 2 answers only once page 1 was taken: waiting for the whole wave would never end.
      fetchPage: async (index) => {
        if (index === 2) await pageOneTaken;
        return pageOf(2, 1, index);
      },
      onPage: async (page) => {
        taken.push(...(page.items as number[]));
        if (page.body.pageIndex === 1) sawPageOne();
      },
    });
    expect(taken).toEqual([0, 1]);
  });

  it('fails when a page before the end fails, and drops the failure of a page past the end', async () => {
    const failing = (bad: number) => async (index: number) => {
      if (index === bad) throw new Error(`page ${index} failed`);
      return pageOf(15, 10, index);
    };
    const onPage = async () => undefined;
    await expect(listAllPages({ pageSize: 10, wave: 4, fetchPage: failing(0), onPage })).rejects.toThrow('page 0 failed');
    // Page 1 is short (5 items); page 2, fetched in the same wave, fails past the end.
    await expect(listAllPages({ pageSize: 10, wave: 4, fetchPage: failing(2), onPage })).resolves.toEqual({ pages: 2, requests: 3 });
  });
});
