import { Rng } from '../../random.js';
import type { CustomerProfiles } from './profiles.js';

const IMAGES = 'https://media.engage.example/loyalty';

/** The scheme's ranks: `threshold` 0.01 means the top 1% of individuals. */
export const RANKS = [
  { id: 1, name: 'Bronze', description: 'Every registered fan', threshold: 1, imageUrl: `${IMAGES}/rank-bronze.png` },
  { id: 2, name: 'Silver', description: 'Top 25% of fans', threshold: 0.25, imageUrl: `${IMAGES}/rank-silver.png` },
  { id: 3, name: 'Gold', description: 'Top 5% of fans', threshold: 0.05, imageUrl: `${IMAGES}/rank-gold.png` },
  { id: 4, name: 'Platinum', description: 'Top 1% of fans', threshold: 0.01, imageUrl: `${IMAGES}/rank-platinum.png` },
] as const;

/** Distinctions for points in total (`points`) or within a sliding window (`windowDays`). */
const DISTINCTIONS = [
  { id: 1, name: 'First whistle', description: 'Collect your first 100 points', points: 100, windowDays: 0 },
  { id: 2, name: 'Regular', description: 'Collect 1,000 points', points: 1000, windowDays: 0 },
  { id: 3, name: 'Superfan', description: 'Collect 5,000 points', points: 5000, windowDays: 0 },
  { id: 4, name: 'On fire', description: 'Collect 500 points within 30 days', points: 500, windowDays: 30 },
  { id: 5, name: 'Legend', description: 'Collect 15,000 points', points: 15000, windowDays: 0 },
] as const;

/**
 * Loyalty per customer profile, found by the profile's e-mail or phone as the platform
 * stores credentials: e-mail trimmed and lowercased, phone as E.164 digits.
 */
export class Loyalty {
  private index?: { email: Map<string, number>; phone: Map<string, number> };

  constructor(
    private readonly seed: number,
    private readonly profiles: CustomerProfiles,
  ) {}

  summary(profileIndex: number): Record<string, unknown> {
    const rng = Rng.for(this.seed, 'eng-loyalty', profileIndex);
    // The balance grows with u, so the share of fans ahead of this one is 1 - u.
    const u = rng.next();
    const balance = Math.floor(u ** 4 * 20_000);
    const ahead = 1 - u;
    const rank = [...RANKS].reverse().find((r) => ahead <= r.threshold) ?? RANKS[0];
    return {
      balance,
      rank: { ...rank },
      ranks: RANKS.map((r) => ({ ...r })),
      distinctions: DISTINCTIONS.map(({ id, name, description, points, windowDays }) => ({
        id,
        name,
        description,
        imageUrl: `${IMAGES}/distinction-${id}.png`,
        isEarned: windowDays > 0 ? balance >= points && rng.chance(0.4) : balance >= points,
      })),
    };
  }

  /** The live profile with this e-mail, or -1. */
  findByEmail(email: string): number {
    return this.lookup().email.get(email.trim().toLowerCase()) ?? -1;
  }

  /** The live profile with this phone (E.164 digits, no plus), or -1. */
  findByPhone(digits: string): number {
    return this.lookup().phone.get(digits) ?? -1;
  }

  /** Forget the credential index (after profiles are removed). */
  invalidate(): void {
    this.index = undefined;
  }

  /** Built on first use: most runs never ask for loyalty. The first profile wins a shared credential. */
  private lookup(): { email: Map<string, number>; phone: Map<string, number> } {
    if (this.index) return this.index;
    const email = new Map<string, number>();
    const phone = new Map<string, number>();
    for (const profile of this.profiles.liveIndices()) {
      const core = this.profiles.core(profile);
      const key = core.email?.trim().toLowerCase();
      if (key && !email.has(key)) email.set(key, profile);
      const digits = core.person.phone.countryCode + core.person.phone.national;
      if (core.phone && !phone.has(digits)) phone.set(digits, profile);
    }
    this.index = { email, phone };
    return this.index;
  }
}
