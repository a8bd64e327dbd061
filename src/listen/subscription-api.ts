import { redact } from '../core/secrets.js';
import { CODE } from '../core/error-codes.js';
import { FanlakeError } from '../core/errors.js';
import { backoffDelay, parseRetryAfter, sleep } from '../core/backoff.js';
import type { SourceConnection } from '../sources/connection.js';

/** A push subscription as the API shows it (the single read adds `format`, `createdDateTime`, `failingSince`). */
export interface PushSubscription {
  readonly id: string;
  readonly url: string;
  readonly isEnabled: boolean;
  readonly isValidated: boolean;
  readonly event: string;
  readonly failingSince?: string | null;
}

export interface SubscriptionApiOptions {
  readonly connection: SourceConnection;
  readonly timeoutMs: number;
  readonly maxAttempts: number;
}

const PATH = '/pushservice/subscriptions';

/**
 * The few calls fanlake makes to `/pushservice/subscriptions` (the extractors' client only
 * GETs): each retried on a network failure, 429 and 5xx with backoff, like every request.
 * Bodies and answers use the documented `subscriptions` wrapper.
 */
export class SubscriptionApi {
  constructor(private readonly options: SubscriptionApiOptions) {}

  /** Subscriptions to CustomerProfile changes, in the list's short form. */
  async list(): Promise<PushSubscription[]> {
    const body = await this.call('GET', `${PATH}?eventname=CustomerProfile`);
    return asList(body).map(toSubscription);
  }

  /** One subscription in full, undefined when the API has none by that id. */
  async get(id: string): Promise<PushSubscription | undefined> {
    const body = await this.call('GET', `${PATH}/${encodeURIComponent(id)}`, undefined, [404]);
    return body === undefined ? undefined : toSubscription(asList(body)[0]);
  }

  async create(url: string): Promise<PushSubscription> {
    return toSubscription(asList(await this.call('POST', PATH, { event: 'CustomerProfile', url }))[0]);
  }

  async update(id: string, fields: { validationToken?: string; isEnabled?: boolean; url?: string }): Promise<PushSubscription> {
    return toSubscription(asList(await this.call('PUT', `${PATH}/${encodeURIComponent(id)}`, fields))[0]);
  }

  async delete(id: string): Promise<void> {
    await this.call('DELETE', `${PATH}/${encodeURIComponent(id)}`, undefined, [404]);
  }

  /** One call, retried while it fails transiently; the parsed body, or undefined for an accepted status. */
  private async call(method: string, path: string, resource?: unknown, accepted: number[] = []): Promise<unknown> {
    const { connection, timeoutMs, maxAttempts } = this.options;
    const url = `${connection.baseUrl}${path}`;
    const what = `${method} ${redact(new URL(url).pathname)}`;
    let last = '';
    let retryAfterMs: number | undefined;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      retryAfterMs = undefined;
      try {
        const response = await fetch(url, {
          method,
          headers: {
            authorization: connection.authorization,
            accept: 'application/vnd.api+json, application/json',
            ...(resource === undefined ? {} : { 'content-type': 'application/vnd.api+json' }),
          },
          body: resource === undefined ? undefined : JSON.stringify({ subscriptions: resource }),
          signal: AbortSignal.timeout(timeoutMs),
        });
        const text = await response.text();
        if (response.ok) return text === '' ? undefined : JSON.parse(text);
        if (accepted.includes(response.status)) return undefined;
        last = `${response.status} ${excerpt(text)}`;
        if (response.status === 401) {
          throw new FanlakeError(CODE.E_HTTP_AUTH, `${what} answered 401: ${connection.credentialHint}`, { context: { source: 'engagement', resource: 'subscriptions', status: 401 } });
        }
        if (response.status !== 429 && response.status < 500) {
          throw new FanlakeError(CODE.E_LISTEN_SUBSCRIPTION, `${what} answered ${last}`, { context: { source: 'engagement', resource: 'subscriptions', status: response.status } });
        }
        retryAfterMs = parseRetryAfter(response.headers.get('retry-after') ?? undefined, 10_000);
      } catch (error) {
        if (error instanceof FanlakeError) throw error;
        last = (error as Error).message;
      }
      if (attempt < maxAttempts) await sleep(retryAfterMs ?? backoffDelay(attempt, { baseDelayMs: 250, maxDelayMs: 10_000 }));
    }
    // `transient` and the last Retry-After let a standalone receiver wait and start again (run-receiver.ts).
    throw new FanlakeError(CODE.E_LISTEN_SUBSCRIPTION, `${what} gave up after ${maxAttempts} attempts; last failure: ${redact(last)}`, {
      context: { source: 'engagement', resource: 'subscriptions', attempts: maxAttempts, transient: true, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) },
    });
  }
}

function asList(body: unknown): unknown[] {
  const inner = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).subscriptions : undefined;
  return Array.isArray(inner) ? inner : inner === undefined ? [] : [inner];
}

function toSubscription(value: unknown): PushSubscription {
  const record = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  if (record.id === undefined || typeof record.url !== 'string') {
    throw new FanlakeError(CODE.E_LISTEN_SUBSCRIPTION, 'the subscriptions API answered without a subscription (id and url)', { context: { source: 'engagement', resource: 'subscriptions' } });
  }
  return {
    id: String(record.id),
    url: record.url,
    isEnabled: record.isEnabled === true || record.isEnabled === 'true',
    isValidated: record.isValidated === true || record.isValidated === 'true',
    event: String(record.event ?? ''),
    failingSince: typeof record.failingSince === 'string' && record.failingSince !== '' ? record.failingSince : null,
  };
}

function excerpt(text: string): string {
  return redact(text.slice(0, 200).replace(/\s+/g, ' '));
}
