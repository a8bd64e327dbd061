import { randomBytes } from 'node:crypto';
import type { SimClock } from '../clock.js';
import type { SimulatorOptions } from '../options.js';
import type { Subscription, Subscriptions } from '../population/engagement/subscriptions.js';
import { iso } from '../population/time.js';

export type PushPolicy = SimulatorOptions['push'];

/** One changed customer profile as a delivery names it. */
export interface ProfileChange {
  readonly id: string;
  readonly changeType: 'updated' | 'deleted';
  readonly changedDateTime: string;
}

/** What the platform's pushes came to, for tests and benchmarks. */
export interface PushStats {
  /** Deliveries a callback answered with 2xx. */
  delivered: number;
  /** Profile changes in those deliveries. */
  deliveredChanges: number;
  /** Attempts that failed (a status other than 2xx, no answer, a timeout). */
  failedAttempts: number;
  /** Deliveries given up after every attempt failed, or left when their subscription was disabled. */
  dropped: number;
  validationsSent: number;
  /** Deliveries waiting or in flight. */
  pending: number;
}

/** Profiles named per delivery at most; a larger change goes out in several. */
export const CHANGES_PER_DELIVERY = 100;

/**
 * The platform's side of push subscriptions: sends a validation token to a new or changed
 * callback URL, and delivers customer profile changes to every enabled and validated
 * subscription, in order, one delivery in flight per subscription, each retried with
 * backoff; `failingSince` tells since when deliveries fail, and a subscription failing
 * for `disableAfterMs` is disabled. The payload and the retry policy are not documented;
 * what the simulator does is written in docs/decisions.md ("Push subscriptions").
 *
 * Only subscriptions created through the API are called: the seeded ones stand for other
 * consumers whose endpoints (on `.example` hosts) keep the state they were generated with.
 */
export class PushDelivery {
  private readonly outboxes = new Map<string, ProfileChange[][]>();
  private readonly running = new Set<string>();
  /** Retry waits, each with what ends it early. */
  private readonly timers = new Map<NodeJS.Timeout, () => void>();
  private readonly inFlight = new Set<AbortController>();
  private idleWaiters: (() => void)[] = [];
  private closed = false;
  /** Every change a callback acknowledged (answered 2xx), in order: what a receiver must not lose. */
  private readonly acknowledged: ProfileChange[] = [];
  private readonly counts: Omit<PushStats, 'pending'> = { delivered: 0, deliveredChanges: 0, failedAttempts: 0, dropped: 0, validationsSent: 0 };

  constructor(
    private readonly subscriptions: Subscriptions,
    private readonly clock: SimClock,
    private readonly orgId: string,
    private readonly policy: PushPolicy,
  ) {}

  /** Makes a subscription one the platform delivers to (created through the API). */
  adopt(subscription: Subscription): void {
    this.outboxes.set(subscription.id, []);
  }

  forget(id: string): void {
    this.outboxes.delete(id);
  }

  /** The changes callbacks acknowledged so far. */
  acknowledgedChanges(): readonly ProfileChange[] {
    return this.acknowledged;
  }

  stats(): PushStats {
    let pending = 0;
    for (const outbox of this.outboxes.values()) pending += outbox.length;
    return { ...this.counts, pending };
  }

  /** A new validation token: unguessable, sent only to the callback URL. */
  newToken(): string {
    return randomBytes(24).toString('base64url');
  }

  /** Sends a validation token to `url`; resolves to the status it answered (undefined: no answer). */
  sendValidation(subscription: Subscription, url: string, token: string): Promise<number | undefined> {
    this.counts.validationsSent++;
    return this.post(url, subscription.format, { subscriptions: { id: subscription.id, event: subscription.event, validationToken: token } });
  }

  /** Profiles changed: one delivery per `CHANGES_PER_DELIVERY` for every subscription that takes deliveries now. */
  notify(changes: readonly ProfileChange[]): void {
    if (changes.length === 0 || this.closed) return;
    for (const [id, outbox] of this.outboxes) {
      const subscription = this.subscriptions.get(id);
      if (!subscription || !takesDeliveries(subscription)) continue;
      for (let at = 0; at < changes.length; at += CHANGES_PER_DELIVERY) outbox.push(changes.slice(at, at + CHANGES_PER_DELIVERY));
      void this.drain(id);
    }
  }

  /** Resolves once no delivery waits or is in flight. */
  idle(): Promise<void> {
    if (this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops every delivery and retry at once. */
  close(): void {
    this.closed = true;
    for (const [timer, wake] of this.timers) {
      clearTimeout(timer);
      wake();
    }
    this.timers.clear();
    for (const controller of this.inFlight) controller.abort();
    for (const outbox of this.outboxes.values()) outbox.length = 0;
  }

  private async drain(id: string): Promise<void> {
    if (this.running.has(id)) return;
    this.running.add(id);
    try {
      for (let outbox = this.outboxes.get(id); outbox && outbox.length > 0 && !this.closed; outbox = this.outboxes.get(id)) {
        const subscription = this.subscriptions.get(id);
        if (!subscription || !takesDeliveries(subscription)) {
          // Deliveries go only to enabled and validated subscriptions: what waits is lost.
          this.counts.dropped += outbox.length;
          outbox.length = 0;
          break;
        }
        await this.deliver(subscription, outbox[0]!);
        outbox.shift();
      }
    } finally {
      this.running.delete(id);
      if (this.running.size === 0) {
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        for (const wake of waiters) wake();
      }
    }
  }

  /** One delivery with its retries; returns when it was answered 2xx or given up. */
  private async deliver(subscription: Subscription, changes: ProfileChange[]): Promise<void> {
    const body = {
      event: subscription.event,
      subscriptionId: subscription.id,
      organizationId: Number(this.orgId),
      customerProfiles: changes.map((change) => ({
        id: change.id,
        type: 'customerProfiles',
        href: `/v2/${this.orgId}/customerinsights/customerprofiles/${change.id}`,
        changeType: change.changeType,
        changedDateTime: change.changedDateTime,
      })),
    };
    for (let attempt = 1; attempt <= this.policy.maxAttempts && !this.closed; attempt++) {
      const status = await this.post(subscription.url, subscription.format, body);
      if (status !== undefined && status >= 200 && status < 300) {
        subscription.failingSince = null;
        this.counts.delivered++;
        this.counts.deliveredChanges += changes.length;
        this.acknowledged.push(...changes);
        return;
      }
      this.counts.failedAttempts++;
      const now = this.clock.now();
      subscription.failingSince ??= iso(now);
      if (now - Date.parse(subscription.failingSince) >= this.policy.disableAfterMs) {
        subscription.isEnabled = false;
        break;
      }
      if (attempt < this.policy.maxAttempts) await this.sleep(this.policy.retryMs * 2 ** (attempt - 1));
    }
    this.counts.dropped++;
  }

  /**
   * POSTs a body to a callback URL: `{org}` replaced by the organization's id, the fragment
   * left off, iso-8859-2 for a URL ending with `#OBSOLETE-CHARSET` (the JSON escapes every
   * character beyond ASCII, so its bytes read the same in either charset). Resolves to the
   * status, or undefined when no answer came.
   */
  private async post(url: string, format: Subscription['format'], body: unknown): Promise<number | undefined> {
    const charset = url.endsWith('#OBSOLETE-CHARSET') ? 'iso-8859-2' : 'utf-8';
    const target = url.replaceAll('{org}', this.orgId).replace(/#.*$/, '');
    const text = JSON.stringify(body).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.policy.timeoutMs);
    this.inFlight.add(controller);
    try {
      const response = await fetch(target, {
        method: 'POST',
        body: text,
        headers: { 'content-type': `${format}; charset=${charset}`, 'user-agent': 'engagement-push/1.0' },
        redirect: 'manual',
        signal: controller.signal,
      });
      await response.arrayBuffer().catch(() => undefined);
      return response.status;
    } catch {
      return undefined;
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(controller);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.set(timer, resolve);
    });
  }
}

function takesDeliveries(subscription: Subscription): boolean {
  return subscription.isEnabled && subscription.isValidated;
}
