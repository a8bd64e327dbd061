import { describe, expect, it } from 'vitest';
import { fillPath, queryText, withQuery } from '../../src/sources/request-target.js';

/** What the engine sent before: a URL whose `searchParams` were set one by one. */
function viaSearchParams(query: Record<string, string | number | undefined>): string {
  const url = new URL('http://x/');
  for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, String(value));
  return url.search.slice(1);
}

describe('queryText', () => {
  it.each([
    { includeRevoked: 'true', pageIndex: 0, pageSize: 50 },
    { type: 'email', value: 'ola+nordmann@example.no' },
    { type: 'phone', value: 'tel:+4740015349' },
    { value: "a b~c!d'e(f)g*h.i-j_k/l?m&n=o#p%q" },
    { demographicValue: 'Østfold – sør', positionCount: 100, intervalId: undefined },
    { 'odd name': 'x', pageIndex: 1e21, score: -1.5 },
    { empty: '' },
  ])('writes %j as URLSearchParams would', (query) => {
    expect(queryText(query)).toBe(viaSearchParams(query));
  });

  it('leaves the query off a path without one', () => {
    expect(withQuery('/mypage/leaderboards/leaderboardseasons', {})).toBe('/mypage/leaderboards/leaderboardseasons');
    expect(withQuery('/things', { only: undefined })).toBe('/things');
    expect(withQuery('/things', { pageIndex: 2 })).toBe('/things?pageIndex=2');
  });
});

describe('fillPath', () => {
  it('fills placeholders with encoded values and leaves unknown ones', () => {
    expect(fillPath('/contexts/{root}/{other}', { root: 'a/b c' })).toBe('/contexts/a%2Fb%20c/{other}');
    expect(fillPath('/subscriptions', undefined)).toBe('/subscriptions');
  });
});
