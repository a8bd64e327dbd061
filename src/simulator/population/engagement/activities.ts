import { Rng } from '../../random.js';
import { HOUR_MS, iso } from '../time.js';
import type { CampaignApps } from './campaign-apps.js';

const ACTIVITY_ID_BASE = 20_000_000;
/** At most this many activities per profile; ids leave room for them. */
const MAX_PER_PROFILE = 24;

/** Types the platform records; `score` is null for the ones that do not count on leaderboards. */
const KINDS = [
  { type: 'ticket', subtype: 'purchase', points: 100, score: 20, weight: 15 },
  { type: 'checkin', subtype: 'stadium', points: 50, score: 30, weight: 20 },
  { type: 'quiz', subtype: 'answer', points: 10, score: 10, weight: 25 },
  { type: 'poll', subtype: 'vote', points: 5, score: null, weight: 15 },
  { type: 'app', subtype: 'login', points: 1, score: null, weight: 15 },
  { type: 'merchandise', subtype: 'purchase', points: 80, score: null, weight: 10 },
] as const;

/** Recorded activities of a customer profile, newest first, generated on demand. */
export class Activities {
  constructor(
    private readonly seed: number,
    private readonly nowMs: number,
    private readonly apps: CampaignApps,
  ) {}

  /** The profile's activities from `offset`, at most `limit`; loyalty amounts are null when loyalty is off. */
  list(profileIndex: number, offset: number, limit: number, loyaltyEnabled: boolean): Record<string, unknown>[] {
    const rng = Rng.for(this.seed, 'eng-activities', profileIndex);
    const count = rng.int(0, MAX_PER_PROFILE);
    const out: Record<string, unknown>[] = [];
    let atMs = this.nowMs;
    for (let k = 0; k < Math.min(count, offset + limit); k++) {
      atMs -= Math.floor(-Math.log(1 - rng.next()) * 9 * 24 * HOUR_MS) + 60_000;
      const kind = rng.weighted(KINDS.map((kind) => [kind, kind.weight] as const));
      const multiplier = rng.weighted([[1, 80], [1.5, 15], [2, 5]] as const);
      const details = this.details(kind.type, rng);
      if (k < offset) continue;
      out.push({
        id: String(ACTIVITY_ID_BASE + profileIndex * (MAX_PER_PROFILE + 1) + k),
        type: kind.type,
        subtype: kind.subtype,
        createdDateTime: iso(atMs),
        originalAmount: loyaltyEnabled ? kind.points : null,
        multiplier: loyaltyEnabled ? multiplier : null,
        totalAmount: loyaltyEnabled ? kind.points * multiplier : null,
        score: kind.score,
        details,
      });
    }
    return out;
  }

  private details(type: string, rng: Rng): Record<string, unknown> {
    const campaignAppId = this.apps.idOf(rng.int(0, this.apps.count - 1));
    switch (type) {
      case 'ticket':
        return { eventId: 1000 + rng.int(0, 239), seats: rng.int(1, 4) };
      case 'checkin':
        return { gate: rng.pick(['A', 'B', 'C', 'D']), eventId: 1000 + rng.int(0, 239) };
      case 'quiz':
        return { campaignAppId, correctAnswers: rng.int(0, 10) };
      case 'poll':
        return { campaignAppId, option: rng.int(1, 4) };
      case 'merchandise':
        return { sku: `SKU-${rng.digits(5)}`, amount: rng.int(99, 1299) };
      default:
        return { platform: rng.pick(['ios', 'android', 'web']) };
    }
  }
}
