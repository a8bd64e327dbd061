import type { ClubProfile } from '../../clubs/club-profile.js';
import type { Population } from '../population.js';
import { Activities } from './activities.js';
import { CampaignApps } from './campaign-apps.js';
import { Consents } from './consents.js';
import { type ContextNode, Contexts } from './contexts.js';
import { Files } from './files.js';
import { Leaderboards } from './leaderboards.js';
import { Loyalty } from './loyalty.js';
import { Participants } from './participants.js';
import { People } from './people.js';
import { CustomerProfiles } from './profiles.js';
import { Subscriptions } from './subscriptions.js';

/** The engagement resources the admin surface lists; names are warehouse table names without `engagement_`. */
export const ENGAGEMENT_RESOURCES = [
  'customer_profiles',
  'people',
  'identities',
  'consents',
  'consent_texts',
  'consent_sources',
  'campaign_apps',
  'campaign_app_authentication_options',
  'participants',
  'subscriptions',
  'leaderboard_seasons',
  'top_positions',
  'context_nodes',
] as const;
export type EngagementResource = (typeof ENGAGEMENT_RESOURCES)[number];

/** The engagement platform's records, generated from the population. */
export class EngagementData {
  readonly profiles: CustomerProfiles;
  readonly people: People;
  readonly campaignApps: CampaignApps;
  readonly consents: Consents;
  readonly participants: Participants;
  readonly subscriptions: Subscriptions;
  readonly leaderboards: Leaderboards;
  readonly contexts: Contexts;
  readonly loyalty: Loyalty;
  readonly activities: Activities;
  readonly files: Files;

  constructor(
    population: Population,
    nowMs: number,
    readonly orgId: string,
    club: ClubProfile,
  ) {
    const { seed, scale } = population;
    this.profiles = new CustomerProfiles(population, orgId);
    this.people = new People(population, this.profiles, nowMs, club.apiApps);
    this.campaignApps = new CampaignApps(seed, scale, nowMs, orgId);
    this.consents = new Consents(seed, nowMs, this.profiles, this.campaignApps, club.consentTexts);
    this.participants = new Participants(population, this.campaignApps, orgId);
    this.subscriptions = new Subscriptions(orgId, nowMs);
    this.leaderboards = new Leaderboards(population, this.profiles, nowMs);
    this.contexts = new Contexts(seed, this.campaignApps);
    this.loyalty = new Loyalty(seed, this.profiles);
    this.activities = new Activities(seed, nowMs, this.campaignApps);
    this.files = new Files(seed, scale);
  }

  get tenantId(): number {
    return Number(this.orgId);
  }

  /** Removes a customer profile and its people; false when there is no live profile with that id. */
  removeProfile(id: string): boolean {
    const index = this.profiles.indexOfId(id);
    if (index < 0) return false;
    this.profiles.remove(index);
    this.leaderboards.invalidate();
    this.loyalty.invalidate();
    return true;
  }

  /**
   * The live records of a resource as the API serves them when its module is on; top
   * positions carry their board (`season_id`, `interval_id`, `demographic_value`).
   */
  *records(resource: EngagementResource, positionCount = 100): Generator<Record<string, unknown>> {
    switch (resource) {
      case 'customer_profiles':
        for (const index of this.profiles.liveIndices()) yield this.profiles.record(index);
        return;
      case 'people':
        for (const index of this.people.liveIndices()) yield this.people.record(index);
        return;
      case 'identities':
        for (const index of this.people.liveIndices()) {
          const identity = this.people.identity(index);
          if (identity) yield identity;
        }
        return;
      case 'consents':
        for (const profile of this.profiles.liveIndices()) {
          for (let c = this.consents.start[profile]!; c < this.consents.start[profile + 1]!; c++) yield this.consents.record(c, profile);
        }
        return;
      case 'consent_texts':
        for (let t = 0; t < this.consents.texts.length; t++) yield this.consents.textRecord(t);
        return;
      case 'consent_sources':
        for (let s = 0; s < this.consents.sourceApps.length; s++) yield this.consents.sourceRecord(s);
        return;
      case 'campaign_apps':
        for (let a = 0; a < this.campaignApps.count; a++) yield this.campaignApps.record(a);
        return;
      case 'campaign_app_authentication_options':
        for (let k = 0; k < this.campaignApps.optionCount; k++) yield this.campaignApps.option(k);
        return;
      case 'participants':
        for (let p = 0; p < this.participants.count; p++) yield this.participants.record(p);
        return;
      case 'subscriptions':
        for (const subscription of this.subscriptions.all()) yield this.subscriptions.record(subscription);
        return;
      case 'leaderboard_seasons':
        for (const season of this.leaderboards.seasons) yield this.leaderboards.seasonRecord(season);
        return;
      case 'top_positions':
        for (const season of this.leaderboards.seasons) {
          for (const key of this.leaderboards.boardKeys(season)) {
            for (const top of this.leaderboards.top(key, positionCount)) {
              yield { season_id: key.seasonId, interval_id: key.intervalId, demographic_value: key.demographicValue, ...top };
            }
          }
        }
        return;
      case 'context_nodes':
        for (const node of this.contexts.nodes) yield this.contextRecord(node);
        return;
    }
  }

  /** A context node's own fields, without `isRoot`, `parent` and `children`. */
  contextRecord(node: ContextNode): Record<string, unknown> {
    return { id: node.id, type: node.type, tenantId: this.tenantId, path: node.path, schema: node.schema, customData: node.customData };
  }
}
