import type { Router } from '../http/router.js';
import { failure } from '../http/router.js';
import { CAMPAIGN_APP_STATUSES, type CampaignAppStatus } from '../population/engagement/campaign-apps.js';
import { ApiError, jsonApi, pageOf, paging, params, v2 } from './guard.js';
import type { EngagementApiState } from './state.js';

/**
 * Campaign apps (create module): `{campaignApps, links, linked: {campaignAppAuthenticationOptions}}`,
 * filtered by `statuses` (repeated or comma-separated).
 */
export function campaignAppRoutes(router: Router, state: EngagementApiState): void {
  const apps = state.data.campaignApps;
  const links = {
    'campaignApps.campaignAppAuthenticationOptions': {
      href: `/v2/${state.options.orgId}/campaign/campaignappauthenticationoptions/{campaignApps.campaignAppAuthenticationOptions}`,
      type: 'campaignAppAuthenticationOptions',
    },
  };
  const linked = (indices: number[]) => ({
    campaignAppAuthenticationOptions: indices.flatMap((a) => apps.optionIndicesOf(a).map((k) => apps.option(k))),
  });

  router.get('/v2/:orgId/campaign/campaignapps', v2(state, 'create', ({ query }) => {
    const page = paging(query);
    const statuses = new Set(params(query, 'statuses').map(statusOf));
    const indices: number[] = [];
    for (let a = 0; a < apps.count; a++) if (statuses.size === 0 || statuses.has(apps.app(a).status)) indices.push(a);
    const shown = pageOf(indices, page);
    return jsonApi({ campaignApps: shown.map((a) => apps.record(a)), links, linked: linked(shown) });
  }));

  router.get('/v2/:orgId/campaign/campaignapps/:id', v2(state, 'create', ({ params: { id } }) => {
    const index = apps.indexOfId(id!);
    if (index < 0) return failure(404, `Could not find CampaignApp: ${id}`);
    return jsonApi({ campaignApps: apps.record(index, true), links, linked: linked([index]) });
  }));
}

function statusOf(value: string): CampaignAppStatus {
  const status = CAMPAIGN_APP_STATUSES.find((s) => s === value.toLowerCase());
  if (!status) throw new ApiError(400, `Unknown status ${value}; statuses are ${CAMPAIGN_APP_STATUSES.join(', ')}`);
  return status;
}
