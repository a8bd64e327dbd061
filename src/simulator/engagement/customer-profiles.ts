import type { Router } from '../http/router.js';
import { failure } from '../http/router.js';
import { jsonApi, pageOf, paging, param, v2 } from './guard.js';
import { parseSearchQuery, profileMatches } from './profile-search.js';
import type { EngagementApiState } from './state.js';

const BASE = '/v2/:orgId/customerinsights/customerprofiles';

/**
 * Customer profiles (interact module): `{links, linked: {people}, customerProfiles}`.
 * `links` holds the relationship template of the JSON:API draft the wrapper follows;
 * there are no paging links, a short or empty page ends the list.
 */
export function customerProfileRoutes(router: Router, state: EngagementApiState): void {
  const { data } = state;
  const links = {
    'customerProfiles.people': { href: `/v2/${state.options.orgId}/customerinsights/people/{customerProfiles.people}`, type: 'people' },
  };
  const linkedPeople = (profiles: number[]) => {
    const people: Record<string, unknown>[] = [];
    for (const profile of profiles) {
      for (let g = data.profiles.peopleStart[profile]!; g < data.profiles.peopleStart[profile + 1]!; g++) people.push(data.people.record(g));
    }
    return people;
  };

  router.get(BASE, v2(state, 'interact', ({ query }) => {
    const page = paging(query);
    const search = param(query, 'searchQuery');
    let indices: ArrayLike<number> = data.profiles.liveIndices();
    if (search !== null && search !== '') {
      const parsed = parseSearchQuery(search);
      // Matching generates every profile it looks at, so stop once the page is full.
      const needed = (page.pageIndex + 1) * page.pageSize;
      const matches: number[] = [];
      for (const index of data.profiles.liveIndices()) {
        if (profileMatches(data, index, parsed) && matches.push(index) >= needed) break;
      }
      indices = matches;
    }
    const profiles = pageOf(indices, page);
    return jsonApi({ links, linked: { people: linkedPeople(profiles) }, customerProfiles: profiles.map((i) => data.profiles.record(i)) });
  }));

  router.get(`${BASE}/:id`, v2(state, 'interact', ({ params }) => {
    const index = data.profiles.indexOfId(params.id!);
    if (index < 0) return failure(404, `Customer Profile with id ${params.id} was not found`);
    return jsonApi({ links, linked: { people: linkedPeople([index]) }, customerProfiles: data.profiles.record(index) });
  }));
}
