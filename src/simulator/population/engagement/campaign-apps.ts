import { Rng } from '../../random.js';
import { TEAMS } from '../names.js';
import { DAY_MS, iso } from '../time.js';

export const CAMPAIGN_APP_ID_BASE = 30_001;
export const AUTH_OPTION_ID_BASE = 60_001;

export const CAMPAIGN_APP_STATUSES = ['planning', 'ready', 'running', 'ended', 'archived'] as const;
export type CampaignAppStatus = (typeof CAMPAIGN_APP_STATUSES)[number];

export const AUTHENTICATION_TYPES = ['myPage', 'form', 'simpleMobile', 'facebook', 'sportsAlliance', 'secureMobile'] as const;

const CAMPAIGN_TYPES = [
  { type: 'quiz', typeId: 3, label: 'Matchday quiz' },
  { type: 'poll', typeId: 5, label: 'Man of the match vote' },
  { type: 'lottery', typeId: 7, label: 'Ticket lottery' },
  { type: 'form', typeId: 9, label: 'Kids club sign-up' },
  { type: 'predictor', typeId: 11, label: 'Score predictor' },
  { type: 'photoContest', typeId: 13, label: 'Fan photo contest' },
] as const;

/** What the list, the linked members and consent sources derive from. */
export interface CampaignApp {
  readonly index: number;
  readonly id: number;
  readonly guid: string;
  readonly status: CampaignAppStatus;
  readonly fromMs: number;
  readonly toMs: number | null;
  readonly type: string;
  readonly typeId: number;
  readonly name: string;
  readonly subtype: string;
  readonly visualType: string;
  readonly language: string;
  readonly shortCode: string;
}

/**
 * Campaign apps and their authentication options. An app's status agrees with its dates
 * at the data time (running apps have started, ended ones have ended); options of app `i`
 * are `optionStart[i] .. optionStart[i+1]`.
 */
export class CampaignApps {
  readonly count: number;
  readonly optionStart: Uint32Array;

  constructor(
    private readonly seed: number,
    scale: number,
    private readonly nowMs: number,
    private readonly orgId: string,
  ) {
    this.count = Math.round(40 * Math.max(1, Math.sqrt(scale)));
    this.optionStart = new Uint32Array(this.count + 1);
    for (let i = 0; i < this.count; i++) this.optionStart[i + 1] = this.optionStart[i]! + this.optionTypes(i).length;
  }

  get optionCount(): number {
    return this.optionStart[this.count]!;
  }

  idOf(index: number): number {
    return CAMPAIGN_APP_ID_BASE + index;
  }

  indexOfId(id: string): number {
    if (!/^\d+$/.test(id)) return -1;
    const index = Number(id) - CAMPAIGN_APP_ID_BASE;
    return index >= 0 && index < this.count ? index : -1;
  }

  /** Whether the app has started, so it can have participants and consents. */
  hasStarted(index: number): boolean {
    const { status } = this.app(index);
    return status === 'running' || status === 'ended' || status === 'archived';
  }

  app(index: number): CampaignApp {
    const rng = Rng.for(this.seed, 'eng-app', index);
    const status = rng.weighted([['planning', 12], ['ready', 8], ['running', 25], ['ended', 40], ['archived', 15]] as const);
    const startDay = Math.floor(this.nowMs / DAY_MS) * DAY_MS;
    let fromMs: number;
    let toMs: number | null;
    switch (status) {
      case 'archived':
        fromMs = startDay - rng.int(400, 1500) * DAY_MS;
        toMs = fromMs + rng.int(7, 60) * DAY_MS;
        break;
      case 'ended':
        toMs = startDay - rng.int(1, 380) * DAY_MS;
        fromMs = toMs - rng.int(7, 60) * DAY_MS;
        break;
      case 'running':
        fromMs = startDay - rng.int(1, 60) * DAY_MS;
        toMs = rng.chance(0.2) ? null : startDay + rng.int(5, 90) * DAY_MS;
        break;
      case 'ready':
        fromMs = startDay + rng.int(3, 30) * DAY_MS;
        toMs = fromMs + rng.int(14, 60) * DAY_MS;
        break;
      case 'planning':
        fromMs = startDay + rng.int(20, 120) * DAY_MS;
        toMs = rng.chance(0.5) ? null : fromMs + rng.int(14, 60) * DAY_MS;
        break;
    }
    fromMs += rng.int(8, 20) * 3_600_000;
    const kind = rng.pick(CAMPAIGN_TYPES);
    const year = new Date(fromMs).getUTCFullYear();
    const opponent = TEAMS[1 + (index % (TEAMS.length - 1))]![1];
    const name =
      kind.type === 'quiz' || kind.type === 'predictor' ? `${kind.label}: ${TEAMS[0][1]} – ${opponent} ${year}`
      : kind.type === 'poll' ? `${kind.label} vs ${opponent} ${year}`
      : `${kind.label} ${year} #${index + 1}`;
    return {
      index,
      id: this.idOf(index),
      guid: uuid(rng),
      status,
      fromMs,
      toMs,
      type: kind.type,
      typeId: kind.typeId,
      name,
      subtype: rng.pick(['standard', 'matchday', 'sponsor']),
      visualType: rng.pick(['card', 'fullscreen', 'embedded']),
      language: rng.weighted([['nb', 85], ['en', 15]] as const),
      shortCode: rng.digits(6),
    };
  }

  /** The app as served; `shareLinkUrl` only in the single-app read, as documented. */
  record(index: number, single = false): Record<string, unknown> {
    const app = this.app(index);
    const rng = Rng.for(this.seed, 'eng-app-fields', index);
    const createdMs = app.fromMs - rng.int(5, 60) * DAY_MS;
    const updatedMs = Math.min(this.nowMs, createdMs + rng.int(0, 400) * DAY_MS);
    const optionIds: string[] = [];
    for (let k = this.optionStart[index]!; k < this.optionStart[index + 1]!; k++) optionIds.push(String(AUTH_OPTION_ID_BASE + k));
    return {
      id: String(app.id),
      href: `/v2/${this.orgId}/campaign/campaignapps/${app.id}`,
      type: 'campaignApps',
      guid: app.guid,
      facebookAppId: rng.chance(0.3) ? 1_000_000_000_000 + rng.int(0, 999_999_999) : 0,
      fromDateTime: iso(app.fromMs),
      ...(app.toMs === null ? {} : { toDateTime: iso(app.toMs) }),
      campaignAppTypeId: app.typeId,
      campaignAppTemplateId: 500 + app.typeId * 10 + rng.int(0, 3),
      smartLinkId: 7000 + index,
      status: app.status,
      isValid: app.status !== 'planning' || rng.chance(0.3),
      ownerActorId: 90_000 + rng.int(1, 12),
      tenantId: Number(this.orgId),
      subtype: app.subtype,
      visualType: app.visualType,
      isRemoved: app.status === 'archived',
      _type: app.type,
      name: app.name,
      createdDateTime: iso(createdMs),
      updatedDateTime: iso(updatedMs),
      createdById: 90_000 + rng.int(1, 12),
      updatedById: 90_000 + rng.int(1, 12),
      version: rng.int(1, 14),
      isDisabled: rng.chance(0.05),
      language: app.language,
      ...(single ? { shareLinkUrl: `https://engage.example/s/${app.shortCode}` } : {}),
      links: { campaignAppAuthenticationOptions: optionIds },
    };
  }

  /** Authentication option `k` (global index) as served under `linked`. */
  option(k: number): Record<string, unknown> {
    const app = this.appOfOption(k);
    const types = this.optionTypes(app);
    const rng = Rng.for(this.seed, 'eng-auth-option', k);
    return {
      id: String(AUTH_OPTION_ID_BASE + k),
      type: 'campaignAppAuthenticationOptions',
      _type: types[k - this.optionStart[app]!]!,
      isEnabled: rng.chance(0.85),
    };
  }

  optionIndicesOf(index: number): number[] {
    const out: number[] = [];
    for (let k = this.optionStart[index]!; k < this.optionStart[index + 1]!; k++) out.push(k);
    return out;
  }

  private appOfOption(k: number): number {
    let app = 0;
    while (this.optionStart[app + 1]! <= k) app++;
    return app;
  }

  /** 1–3 distinct authentication types per app. */
  private optionTypes(index: number): string[] {
    const rng = Rng.for(this.seed, 'eng-app-options', index);
    const count = rng.weighted([[1, 40], [2, 40], [3, 20]] as const);
    const types = [...AUTHENTICATION_TYPES];
    const out: string[] = [];
    for (let n = 0; n < count; n++) out.push(types.splice(rng.int(0, types.length - 1), 1)[0]!);
    return out;
  }
}

/** A version-4-shaped UUID from the stream (deterministic, not random). */
export function uuid(rng: Rng): string {
  let hex = '';
  for (let i = 0; i < 32; i++) hex += rng.int(0, 15).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
}
