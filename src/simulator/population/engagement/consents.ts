import type { ConsentText } from '../../clubs/club-profile.js';
import { Rng } from '../../random.js';
import { DAY_MS, iso } from '../time.js';
import type { CampaignApps } from './campaign-apps.js';
import { type CustomerProfiles, PERSON_ID_BASE } from './profiles.js';

export const CONSENT_ID_BASE = 7_000_000;

/** The source type of every consent source: the document knows only campaign app participation. */
const SOURCE_TYPE = 'CampaignApp';

/**
 * Consents, their texts (the club profile's, whose purpose and channels are not served) and
 * their sources (one per started campaign app). Consents of
 * profile `i` are `start[i] .. start[i+1]`; which text and source each has is kept in
 * typed arrays because searches by campaign app name need it for every profile.
 */
export class Consents {
  readonly start: Uint32Array;
  readonly textOf: Uint8Array;
  readonly sourceOf: Uint16Array;
  /** Consent source index → campaign app index. */
  readonly sourceApps: Uint16Array;

  constructor(
    private readonly seed: number,
    private readonly nowMs: number,
    private readonly profiles: CustomerProfiles,
    private readonly apps: CampaignApps,
    readonly texts: readonly ConsentText[],
  ) {
    const started: number[] = [];
    for (let a = 0; a < apps.count; a++) if (apps.hasStarted(a)) started.push(a);
    this.sourceApps = Uint16Array.from(started);
    this.start = new Uint32Array(profiles.count + 1);
    for (let i = 0; i < profiles.count; i++) this.start[i + 1] = this.start[i]! + this.countFor(i);
    const total = this.start[profiles.count]!;
    this.textOf = new Uint8Array(total);
    this.sourceOf = new Uint16Array(total);
    for (let i = 0; i < profiles.count; i++) {
      const rng = Rng.for(seed, 'eng-consent-plan', i);
      const texts = this.texts.map((_, t) => t);
      for (let c = this.start[i]!; c < this.start[i + 1]!; c++) {
        this.textOf[c] = texts.splice(rng.int(0, texts.length - 1), 1)[0]!;
        this.sourceOf[c] = rng.int(0, this.sourceApps.length - 1);
      }
    }
  }

  get count(): number {
    return this.start[this.profiles.count]!;
  }

  /** The consent as served. */
  record(c: number, profileIndex: number): Record<string, unknown> {
    const rng = Rng.for(this.seed, 'eng-consent', c);
    const app = this.apps.app(this.sourceApps[this.sourceOf[c]!]!);
    const until = Math.min(app.toMs ?? this.nowMs, this.nowMs);
    const createdMs = Math.floor(app.fromMs + rng.next() * Math.max(0, until - app.fromMs));
    const revoked = rng.chance(0.14);
    const { peopleStart } = this.profiles;
    const identityId = PERSON_ID_BASE + rng.int(peopleStart[profileIndex]!, peopleStart[profileIndex + 1]! - 1);
    const id = CONSENT_ID_BASE + c;
    const first = this.start[profileIndex]!;
    return this.profiles.revisions.consent({
      id: String(id),
      href: `/v2/${this.profiles.orgId}/customerinsights/consents/${id}`,
      type: 'consents',
      isRevoked: revoked,
      revokedDateTime: revoked ? iso(createdMs + rng.next() * (this.nowMs - createdMs)) : null,
      customerProfileId: this.profiles.idOf(profileIndex),
      identityId,
      createdDateTime: iso(createdMs),
      createdById: identityId,
      links: { consentText: String(this.texts[this.textOf[c]!]!.id), consentSource: this.sourceIdOf(this.sourceOf[c]!) },
    }, profileIndex, c - first, this.start[profileIndex + 1]! - first);
  }

  sourceIdOf(source: number): string {
    return `${this.apps.idOf(this.sourceApps[source]!)}_${SOURCE_TYPE}`;
  }

  /** Consent source index of an id as served (`<sourceId>_<sourceType>`), or -1. */
  sourceIndexOfId(id: string): number {
    const app = this.apps.indexOfId(id.split('_')[0]!);
    return id === `${this.apps.idOf(app)}_${SOURCE_TYPE}` ? this.sourceApps.indexOf(app) : -1;
  }

  /** Consent text index of an id as served, or -1. */
  textIndexOfId(id: string): number {
    return this.texts.findIndex((t) => String(t.id) === id);
  }

  textRecord(t: number): Record<string, unknown> {
    const text = this.texts[t]!;
    return {
      id: String(text.id),
      type: 'consentTexts',
      text: text.text,
      isRequired: text.isRequired,
      isEnabled: text.isEnabled,
      createdDateTime: iso(this.nowMs - (1400 - t * 150) * DAY_MS),
      createdById: 90_001,
    };
  }

  sourceRecord(source: number): Record<string, unknown> {
    const app = this.apps.app(this.sourceApps[source]!);
    return {
      id: this.sourceIdOf(source),
      type: app.type,
      sourceId: String(app.id),
      sourceType: SOURCE_TYPE,
      campaignAppId: app.id,
      fromDateTime: iso(app.fromMs),
      toDateTime: app.toMs === null ? null : iso(app.toMs),
      guid: app.guid,
      title: app.name,
      shortUrl: `https://engage.example/s/${app.shortCode}`,
      url: `https://engage.example/campaigns/${app.guid}`,
      subtype: app.subtype,
      visualType: app.visualType,
      tenantid: Number(this.profiles.orgId),
    };
  }

  private countFor(profileIndex: number): number {
    if (this.sourceApps.length === 0) return 0;
    return Rng.for(this.seed, 'eng-consent-count', profileIndex).weighted([[0, 25], [1, 30], [2, 25], [3, 12], [4, 8]] as const);
  }
}
