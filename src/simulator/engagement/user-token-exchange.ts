import type { Router } from '../http/router.js';
import { failure } from '../http/router.js';
import { param, v2 } from './guard.js';
import type { EngagementApiState } from './state.js';
import { DEMO_PROVIDER } from './user-tokens.js';

/**
 * `customerinsights/cmtoken` (interact module): a supported third-party token to a user
 * token, as plain text. The simulator supports one provider, `demo`, whose tokens are
 * `demo-<customerProfileId>`.
 */
export function tokenExchangeRoutes(router: Router, state: EngagementApiState): void {
  router.get('/v2/:orgId/customerinsights/cmtoken', v2(state, 'interact', ({ query }) => {
    const token = param(query, 'token');
    const provider = param(query, 'provider');
    if (!token || !provider) return failure(400, 'token and provider are required');
    if (provider !== DEMO_PROVIDER) return failure(400, `Provider ${provider} is not supported`);
    const profileId = state.tokens.fromThirdParty(provider, token);
    if (profileId === undefined || state.data.profiles.indexOfId(String(profileId)) < 0) {
      return failure(400, `Token is not valid for provider ${provider}`);
    }
    return { status: 200, body: state.tokens.issue(profileId), contentType: 'text/plain; charset=utf-8' };
  }));
}
