import type { Router } from '../http/router.js';
import { failure } from '../http/router.js';
import { jsonApi, param, v2 } from './guard.js';
import type { EngagementApiState } from './state.js';

/**
 * Push subscriptions (no module prerequisite): the list in the documented short form,
 * filtered by `eventname` (ignoring case), the single read in full.
 */
export function subscriptionRoutes(router: Router, state: EngagementApiState): void {
  const { subscriptions } = state.data;

  router.get('/v2/:orgId/pushservice/subscriptions', v2(state, undefined, ({ query }) => {
    const event = param(query, 'eventname')?.toLowerCase();
    const shown = subscriptions.all().filter((s) => !event || s.event.toLowerCase() === event);
    return jsonApi({ subscriptions: shown.map((s) => subscriptions.listRecord(s)) });
  }));

  router.get('/v2/:orgId/pushservice/subscriptions/:id', v2(state, undefined, ({ params: { id } }) => {
    const subscription = subscriptions.get(id!);
    if (!subscription) return failure(404, `Could not find Subscription: ${id}`);
    return jsonApi({ subscriptions: subscriptions.record(subscription) });
  }));
}
