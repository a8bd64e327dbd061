import type { SimClock } from '../clock.js';
import type { EngagementModule, SimulatorOptions } from '../options.js';
import type { EngagementData } from '../population/engagement/index.js';
import type { PushDelivery } from './push-delivery.js';
import type { UserTokens } from './user-tokens.js';

/** What the engagement routes share; the simulator owns it and the admin surface changes it. */
export interface EngagementApiState {
  readonly options: SimulatorOptions;
  readonly clock: SimClock;
  readonly data: EngagementData;
  /** Modules the organization lacks right now: from `--disable-module`, switched by the admin surface. */
  readonly disabledModules: Set<EngagementModule>;
  readonly tokens: UserTokens;
  /** Validation calls and deliveries to the callback URLs of subscriptions created through the API. */
  readonly push: PushDelivery;
}
