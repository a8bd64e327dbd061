import type { Router } from '../http/router.js';
import { failure } from '../http/router.js';
import { idParam, jsonApi, paging, v2 } from './guard.js';
import type { EngagementApiState } from './state.js';

/** Campaign app participants (create module), optionally of one campaign app: `{campaignAppParticipants}`. */
export function participantRoutes(router: Router, state: EngagementApiState): void {
  const { participants, campaignApps } = state.data;

  router.get('/v2/:orgId/campaign/participants', v2(state, 'create', ({ query }) => {
    const page = paging(query);
    const appId = idParam(query, 'campaignAppId');
    let [start, end] = [0, participants.count];
    if (appId !== undefined) {
      const app = campaignApps.indexOfId(String(appId));
      [start, end] = app < 0 ? [0, 0] : [participants.start[app]!, participants.start[app + 1]!];
    }
    const first = start + page.pageIndex * page.pageSize;
    const shown: Record<string, unknown>[] = [];
    for (let p = first; p < Math.min(end, first + page.pageSize); p++) shown.push(participants.record(p));
    return jsonApi({ campaignAppParticipants: shown });
  }));

  router.get('/v2/:orgId/campaign/participants/:id', v2(state, 'create', ({ params: { id } }) => {
    const index = participants.indexOfId(id!);
    if (index < 0) return failure(404, `Could not find Participant: ${id}`);
    return jsonApi({ campaignAppParticipants: participants.record(index) });
  }));
}
