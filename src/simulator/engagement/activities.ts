import type { Router } from '../http/router.js';
import { json } from '../http/router.js';
import { intParam, userApi } from './guard.js';
import type { EngagementApiState } from './state.js';

/** The calling user's recorded activities, most recent first (userapi, Bearer user token). */
export function activityRoutes(router: Router, state: EngagementApiState): void {
  router.get('/userapi/v1/:orgId/mypage/activities', userApi(state, ({ query }, profile) => {
    const limit = intParam(query, 'limit', 10, 1, 100);
    const offset = intParam(query, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
    return json(200, state.data.activities.list(profile, offset, limit, !state.disabledModules.has('loyalty')));
  }));
}
