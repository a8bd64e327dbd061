import { DAY_MS, iso } from '../time.js';

export const SUBSCRIPTION_EVENTS = ['CustomerProfile'] as const;
export const SUBSCRIPTION_FORMATS = ['application/vnd.api+json', 'application/json'] as const;

/** A push subscription as stored; `validationToken` is never served (it is PUT only). */
export interface Subscription {
  id: string;
  url: string;
  isEnabled: boolean;
  isValidated: boolean;
  event: (typeof SUBSCRIPTION_EVENTS)[number];
  format: (typeof SUBSCRIPTION_FORMATS)[number];
  createdDateTime: string;
  failingSince: string | null;
  /** The token last sent to `url`; pending until the owner PUTs it back. */
  validationToken: string | null;
}

/**
 * Push subscriptions: few and mutable (the write side creates, validates and deletes
 * them), so they live in a map rather than being generated.
 */
export class Subscriptions {
  private readonly byId = new Map<string, Subscription>();
  private nextId = 61;

  constructor(private readonly orgId: string, nowMs: number) {
    this.add({
      url: 'https://crm.fanlake-club.example/hooks/{org}/customer-profiles',
      isEnabled: true,
      isValidated: true,
      format: 'application/vnd.api+json',
      createdDateTime: iso(nowMs - 400 * DAY_MS),
      failingSince: null,
    });
    this.add({
      url: 'https://legacy-dwh.fanlake-club.example/push/profiles#OBSOLETE-CHARSET',
      isEnabled: true,
      isValidated: true,
      format: 'application/json',
      createdDateTime: iso(nowMs - 1100 * DAY_MS),
      failingSince: iso(nowMs - 12 * DAY_MS + 3_600_000),
    });
    this.add({
      url: 'https://staging.partner-agency.example/engage/{org}/callback',
      isEnabled: false,
      isValidated: false,
      format: 'application/json',
      createdDateTime: iso(nowMs - 3 * DAY_MS),
      failingSince: null,
    });
  }

  /** Creates a subscription (also the write side's POST); returns it. */
  add(fields: Omit<Subscription, 'id' | 'event' | 'validationToken'> & Partial<Pick<Subscription, 'event'>>): Subscription {
    const subscription: Subscription = { event: 'CustomerProfile', validationToken: null, ...fields, id: String(this.nextId++) };
    this.byId.set(subscription.id, subscription);
    return subscription;
  }

  get(id: string): Subscription | undefined {
    return this.byId.get(id);
  }

  delete(id: string): boolean {
    return this.byId.delete(id);
  }

  all(): Subscription[] {
    return [...this.byId.values()];
  }

  /** The short form the list endpoint documents: id, href, type, url, isEnabled, isValidated, event. */
  listRecord(subscription: Subscription): Record<string, unknown> {
    const { id, url, isEnabled, isValidated, event } = subscription;
    return { id, href: this.href(id), type: 'subscriptions', url, isEnabled, isValidated, event };
  }

  /** The full form of the single read. */
  record(subscription: Subscription): Record<string, unknown> {
    const { format, createdDateTime, failingSince } = subscription;
    return { ...this.listRecord(subscription), format, createdDateTime, failingSince };
  }

  private href(id: string): string {
    return `/v2/${this.orgId}/pushservice/subscriptions/${id}`;
  }
}
