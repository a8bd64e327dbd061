import type { Reply, Router } from '../http/router.js';
import { failure, json } from '../http/router.js';
import { SUBSCRIPTION_EVENTS, type Subscription } from '../population/engagement/subscriptions.js';
import { iso } from '../population/time.js';
import { jsonApi, param, v2 } from './guard.js';
import type { EngagementApiState } from './state.js';

/**
 * Push subscriptions (no module prerequisite): the list in the documented short form,
 * filtered by `eventname` (ignoring case), the single read in full, and the write side:
 * create (a validation token goes to the new URL), PUT (the token back, `isEnabled`, a new
 * URL that must answer the validation call with 200), DELETE. Deliveries: `PushDelivery`.
 */
export function subscriptionRoutes(router: Router, state: EngagementApiState): void {
  const { subscriptions } = state.data;
  const { push } = state;
  const BASE = '/v2/:orgId/pushservice/subscriptions';
  /** URL changes waiting for the new URL's answer: a token PUT back that early applies the change too. */
  const changing = new Map<string, { url: string; token: string }>();

  router.get(BASE, v2(state, undefined, ({ query }) => {
    const event = param(query, 'eventname')?.toLowerCase();
    const shown = subscriptions.all().filter((s) => !event || s.event.toLowerCase() === event);
    return jsonApi({ subscriptions: shown.map((s) => subscriptions.listRecord(s)) });
  }));

  router.get(`${BASE}/:id`, v2(state, undefined, ({ params: { id } }) => {
    const subscription = subscriptions.get(id!);
    if (!subscription) return notFound(id!);
    return jsonApi({ subscriptions: subscriptions.record(subscription) });
  }));

  router.add('POST', BASE, v2(state, undefined, ({ body }) => {
    const fields = wrapped(body);
    if (!fields) return failure(400, 'The body must be {"subscriptions": {"event": ..., "url": ...}}');
    const event = SUBSCRIPTION_EVENTS.find((e) => e === fields.event);
    if (!event) return failure(400, `event must be one of ${SUBSCRIPTION_EVENTS.join(', ')}`);
    const problem = urlProblem(fields.url);
    if (problem) return failure(400, problem);
    const subscription = subscriptions.add({
      url: fields.url as string,
      event,
      isEnabled: false,
      isValidated: false,
      format: 'application/vnd.api+json',
      createdDateTime: iso(state.clock.now()),
      failingSince: null,
    });
    push.adopt(subscription);
    // The token goes out once the answer is on its way; the owner PUTs it back.
    subscription.validationToken = push.newToken();
    setImmediate(() => void push.sendValidation(subscription, subscription.url, subscription.validationToken!));
    return json(201, { subscriptions: subscriptions.record(subscription) }, JSON_API);
  }));

  router.add('PUT', `${BASE}/:id`, v2(state, undefined, async ({ params: { id }, body }) => {
    const subscription = subscriptions.get(id!);
    if (!subscription) return notFound(id!);
    const fields = wrapped(body);
    if (!fields) return failure(400, 'The body must be {"subscriptions": {"validationToken"?, "isEnabled"?, "url"?}}');
    if (fields.isEnabled !== undefined && typeof fields.isEnabled !== 'boolean') return failure(400, 'isEnabled must be true or false');
    if (fields.validationToken !== undefined) {
      const early = changing.get(subscription.id);
      if (early && fields.validationToken === early.token) applyUrl(subscription, early.url);
      else if (subscription.validationToken === null || fields.validationToken !== subscription.validationToken) {
        return failure(400, 'Invalid validation token');
      }
      subscription.isValidated = true;
      subscription.validationToken = null;
    }
    if (fields.url !== undefined && fields.url !== subscription.url) {
      const problem = urlProblem(fields.url);
      if (problem) return failure(400, problem);
      const url = fields.url as string;
      const token = push.newToken();
      changing.set(subscription.id, { url, token });
      const answered = await push.sendValidation(subscription, url, token).finally(() => changing.delete(subscription.id));
      if (answered !== 200) return failure(409, 'The new url did not answer the validation call with status 200; the url is unchanged');
      // Unless the token came back while the new URL was answering, the change waits for it.
      if (!(subscription.url === url && subscription.isValidated)) {
        applyUrl(subscription, url);
        subscription.validationToken = token;
      }
    }
    if (typeof fields.isEnabled === 'boolean') subscription.isEnabled = fields.isEnabled;
    return jsonApi({ subscriptions: subscriptions.record(subscription) });
  }));

  router.add('DELETE', `${BASE}/:id`, v2(state, undefined, ({ params: { id } }): Reply => {
    if (!subscriptions.delete(id!)) return notFound(id!);
    push.forget(id!);
    return { status: 204 };
  }));

}

/** A changed URL: revalidation is required. */
function applyUrl(subscription: Subscription, url: string): void {
  subscription.url = url;
  subscription.isValidated = false;
  subscription.validationToken = null;
}

const JSON_API = { 'content-type': 'application/vnd.api+json; charset=utf-8' };

function notFound(id: string): Reply {
  return failure(404, `Could not find Subscription: ${id}`);
}

/** The resource under the documented `subscriptions` key, or undefined when the body is not that shape. */
function wrapped(body: unknown): Record<string, unknown> | undefined {
  const inner = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).subscriptions : undefined;
  return typeof inner === 'object' && inner !== null && !Array.isArray(inner) ? (inner as Record<string, unknown>) : undefined;
}

function urlProblem(url: unknown): string | undefined {
  if (typeof url !== 'string') return 'url must be an http(s) URL';
  try {
    const parsed = new URL(url.replaceAll('{org}', '0'));
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? undefined : 'url must be an http(s) URL';
  } catch {
    return 'url must be an http(s) URL';
  }
}
