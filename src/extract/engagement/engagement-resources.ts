import {
  AUTHENTICATION_OPTION_FIELDS, CAMPAIGN_APP_FIELDS, CONSENT_FIELDS, CONSENT_SOURCE_FIELDS, CONSENT_TEXT_FIELDS,
  CONTEXT_NODE_FIELDS, CUSTOMER_PROFILE_FIELDS, LEADERBOARD_SEASON_FIELDS, LOYALTY_SUMMARY_FIELDS, PARTICIPANT_FIELDS,
  PERSON_FIELDS, SUBSCRIPTION_FIELDS, TOP_POSITION_FIELDS,
} from '../../sources/engagement/resources.js';
import type { SinkSpec } from '../resource-sink.js';

const spec = (name: string, fields: SinkSpec['fields'], primaryKey: string[] = ['id'], requiredKey?: string[]): SinkSpec => ({
  source: 'engagement',
  name,
  fields,
  primaryKey,
  requiredKey,
});

/** Every raw table of the engagement source (contract names without the `engagement_` prefix). */
export const ENGAGEMENT_SINKS = {
  customer_profiles: spec('customer_profiles', CUSTOMER_PROFILE_FIELDS),
  people: spec('people', PERSON_FIELDS),
  consents: spec('consents', CONSENT_FIELDS),
  consent_texts: spec('consent_texts', CONSENT_TEXT_FIELDS),
  consent_sources: spec('consent_sources', CONSENT_SOURCE_FIELDS),
  campaign_apps: spec('campaign_apps', CAMPAIGN_APP_FIELDS),
  campaign_app_authentication_options: spec('campaign_app_authentication_options', AUTHENTICATION_OPTION_FIELDS),
  participants: spec('participants', PARTICIPANT_FIELDS),
  subscriptions: spec('subscriptions', SUBSCRIPTION_FIELDS),
  leaderboard_seasons: spec('leaderboard_seasons', LEADERBOARD_SEASON_FIELDS),
  // The board is given by the request: interval and demographic value are NULL on a
  // season's general board, so only the season and the profile are required.
  top_positions: spec('top_positions', TOP_POSITION_FIELDS, ['season_id', 'interval_id', 'demographic_value', 'customerProfileId'], ['season_id', 'customerProfileId']),
  context_nodes: spec('context_nodes', CONTEXT_NODE_FIELDS),
  loyalty_summaries: spec('loyalty_summaries', LOYALTY_SUMMARY_FIELDS, ['customerProfileId']),
} as const;

export type EngagementResource = keyof typeof ENGAGEMENT_SINKS;
export const ENGAGEMENT_RESOURCE_NAMES = Object.keys(ENGAGEMENT_SINKS) as EngagementResource[];

/** User-scoped endpoints that organization-level extraction cannot read. */
export const USER_SCOPED = {
  activities: 'the activities listing is user-scoped (a fan\'s Bearer token), not organization data',
  leaderboard_summary: 'the leaderboard summary is user-scoped (a fan\'s Bearer token), not organization data',
} as const;
