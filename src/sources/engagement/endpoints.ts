import type { EndpointDeclaration } from '../endpoint-declaration.js';
import type { PersonKey } from '../personal-data.js';
import { type EngagementSettings, boardsOf, contextRootsOf, firstPersonOf, flattenTree, isApiAppIdentity, loyaltyQueryOf } from './hooks.js';
import {
  AUTHENTICATION_OPTION_FIELDS, CAMPAIGN_APP_FIELDS, CONSENT_FIELDS, CONSENT_SOURCE_FIELDS, CONSENT_TEXT_FIELDS,
  CONTEXT_NODE_FIELDS, CUSTOMER_PROFILE_FIELDS, CUSTOMER_PROFILE_PERSONAL, IDENTITY_FIELDS, IDENTITY_PERSONAL,
  LEADERBOARD_SEASON_FIELDS, LOYALTY_SUMMARY_FIELDS, PARTICIPANT_FIELDS, PARTICIPANT_PERSONAL, PERSON_FIELDS, PERSON_PERSONAL,
  SUBSCRIPTION_FIELDS, TOP_POSITION_FIELDS, TOP_POSITION_PERSONAL,
} from './resources.js';

type Endpoint = EndpointDeclaration<EngagementSettings>;
const profile = (field: string): PersonKey => ({ field, refersTo: 'engagement_customer_profile' });
// An identity's id is its person's: identities are read by the ids of people.
const person = (field: string): PersonKey => ({ field, refersTo: 'engagement_person' });
const id = ['id'];
const pageIndex = { style: 'page-index' } as const;
const single = { style: 'none' } as const;

/**
 * The organization-level endpoints of the engagement API (seed document 000), each read
 * completely every run (a snapshot). Names are raw tables without `engagement_`; a
 * linked member lands in its own table in the same commit as its endpoint's. Every
 * documented "not found" answer here means "nothing here", so 404s are empty results.
 */
export const ENGAGEMENT_ENDPOINTS: readonly Endpoint[] = [
  {
    name: 'customer_profiles', path: '/customerinsights/customerprofiles', paging: pageIndex, itemsKey: 'customerProfiles',
    primaryKey: id, fields: CUSTOMER_PROFILE_FIELDS, personal: CUSTOMER_PROFILE_PERSONAL, personKeys: [profile('id')], module: 'interact', notFound: 'empty',
    // The push subscription names changed profiles; a run that knows them reads these alone.
    byKey: { path: '/customerinsights/customerprofiles/{id}', key: 'id', label: 'profile {id}' },
    linked: [{ member: 'people', name: 'people', primaryKey: id, fields: PERSON_FIELDS, personal: PERSON_PERSONAL, personKeys: [person('id'), profile('customerProfileId')] }],
  },
  {
    // The path takes an identity id; the answer covers that identity's whole customer profile.
    name: 'consents', path: '/customerinsights/customerprofiles/{personId}/consents', paging: pageIndex, itemsKey: 'consents',
    query: { includeRevoked: 'true' }, primaryKey: id, fields: CONSENT_FIELDS, personKeys: [profile('customerProfileId'), person('identityId')], module: 'interact', notFound: 'empty',
    fanOut: { parent: 'customer_profiles', children: firstPersonOf },
    linked: [
      { member: 'consentTexts', name: 'consent_texts', primaryKey: id, fields: CONSENT_TEXT_FIELDS, dedupe: true },
      { member: 'consentSources', name: 'consent_sources', primaryKey: id, fields: CONSENT_SOURCE_FIELDS, dedupe: true },
    ],
  },
  {
    name: 'identities', path: '/identities/{id}', paging: single, primaryKey: id, fields: IDENTITY_FIELDS, personal: IDENTITY_PERSONAL, personKeys: [person('id'), profile('customerProfileId')],
    module: 'apiApp', notFound: 'empty',
    fanOut: { parent: 'people', key: 'id', when: isApiAppIdentity, label: 'identity {id}' },
    skip: (settings) => (settings.identities === 'off' ? 'left off (FANLAKE_ENGAGEMENT_IDENTITIES=off)' : undefined),
  },
  {
    name: 'loyalty_summaries', path: '/mypage/loyaltysummary', paging: single, primaryKey: ['customerProfileId'],
    fields: LOYALTY_SUMMARY_FIELDS, personKeys: [profile('customerProfileId')], module: 'loyalty', notFound: 'empty',
    fanOut: { parent: 'customer_profiles', children: loyaltyQueryOf },
    skip: (settings) => (settings.loyalty ? undefined : 'opt-in fan-out, one request per profile: set FANLAKE_ENGAGEMENT_LOYALTY=true'),
  },
  {
    name: 'campaign_apps', path: '/campaign/campaignapps', paging: pageIndex, itemsKey: 'campaignApps', primaryKey: id,
    fields: CAMPAIGN_APP_FIELDS, module: 'create', notFound: 'empty',
    linked: [{ member: 'campaignAppAuthenticationOptions', name: 'campaign_app_authentication_options', primaryKey: id, fields: AUTHENTICATION_OPTION_FIELDS, dedupe: true }],
  },
  {
    name: 'participants', path: '/campaign/participants', paging: pageIndex, itemsKey: 'campaignAppParticipants', primaryKey: id,
    fields: PARTICIPANT_FIELDS, personal: PARTICIPANT_PERSONAL, personKeys: [{ field: 'emailAddress', refersTo: 'email' }], module: 'create', notFound: 'empty',
  },
  {
    name: 'subscriptions', path: '/pushservice/subscriptions', paging: single, itemsKey: 'subscriptions', primaryKey: id,
    fields: SUBSCRIPTION_FIELDS, notFound: 'empty', secretFields: ['url'],
  },
  {
    // 404 "LeaderboardSeason not found": no season is configured, an empty result.
    name: 'leaderboard_seasons', path: '/mypage/leaderboards/leaderboardseasons', paging: single, primaryKey: id,
    fields: LEADERBOARD_SEASON_FIELDS, module: 'leaderboards', notFound: 'empty',
  },
  {
    // The board is given by the request: interval and demographic value are NULL on a
    // season's general board, so only the season and the profile are required.
    name: 'top_positions', path: '/mypage/leaderboards/toppositions', paging: single,
    primaryKey: ['season_id', 'interval_id', 'demographic_value', 'customerProfileId'], requiredKey: ['season_id', 'customerProfileId'],
    fields: TOP_POSITION_FIELDS, personal: TOP_POSITION_PERSONAL, personKeys: [profile('customerProfileId')], module: 'leaderboards', notFound: 'empty',
    fanOut: { parent: 'leaderboard_seasons', children: boardsOf },
  },
  {
    name: 'context_nodes', path: '/mypage/contexts/{root}', paging: single, items: flattenTree, primaryKey: id,
    fields: CONTEXT_NODE_FIELDS, notFound: 'empty',
    fanOut: { children: contextRootsOf },
    skip: (settings) => (settings.contextRoots.length === 0 ? 'no context root ids configured (FANLAKE_ENGAGEMENT_CONTEXT_ROOTS); the API cannot list them' : undefined),
  },
];

/** User-scoped endpoints that organization-level extraction cannot read. */
export const USER_SCOPED = {
  activities: 'the activities listing is user-scoped (a fan\'s Bearer token), not organization data',
  leaderboard_summary: 'the leaderboard summary is user-scoped (a fan\'s Bearer token), not organization data',
} as const;
