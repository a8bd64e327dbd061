import { CursorResource, type Item } from '../../store/cursor-resource.js';
import { Rng } from '../../random.js';
import type { Population } from '../population.js';
import { USER_ID_BASE, type Users } from './users.js';
import { segmentOf } from '../../store/sorted.js';

/** Consent types (id_consent_basic); the documents name none, these are the simulator's. */
export const CONSENT_TYPES = [
  { id: 1, name: 'Newsletter', description: 'News and offers from the club by e-mail', share: 0.7 },
  { id: 2, name: 'SMS', description: 'Match reminders and offers by text message', share: 0.45 },
  { id: 3, name: 'Push notifications', description: 'Notifications in the club app', share: 0.6 },
  { id: 4, name: 'Partner offers', description: 'Offers from the club\'s partners', share: 0.45 },
  { id: 5, name: 'Profiling', description: 'Use of purchase history to tailor offers', share: 0.8 },
] as const;

/** User permissions (`/api/user_permission`): one row per user and consent type answered. */
export class UserPermissions extends CursorResource {
  private readonly start: Uint32Array;
  private readonly masks: Uint8Array;

  constructor(
    private readonly population: Population,
    private readonly users: Users,
    nowMs: number,
  ) {
    const count = users.created.length;
    const masks = new Uint8Array(count);
    const start = new Uint32Array(count + 1);
    const rng = Rng.for(population.seed, 'permissions');
    for (let u = 0; u < count; u++) {
      let mask = 0;
      CONSENT_TYPES.forEach((type, bit) => {
        if (rng.chance(type.share)) mask |= 1 << bit;
      });
      masks[u] = mask;
      start[u + 1] = start[u]! + popcount(mask);
    }
    const lastUpdate = new Float64Array(start[count]!);
    for (let k = 0; k < lastUpdate.length; k++) {
      const user = segmentOf(start, k);
      const created = users.created[user]!;
      lastUpdate[k] = Math.floor(created + rng.next() * (nowMs - created));
    }
    super('user_permissions', lastUpdate);
    this.start = start;
    this.masks = masks;
  }

  keyOf(item: Item): string {
    return `${item.id_user}|${item.id_consent_basic}`;
  }

  protected newKey(index: number): Item {
    // A copy becomes the same consent type answered by a user beyond the generated ones.
    return { id_user: String(USER_ID_BASE + this.users.created.length + index) };
  }

  protected generate(index: number, version: number, lastUpdate: string): Item {
    const user = segmentOf(this.start, index);
    let nth = index - this.start[user]!;
    let bit = 0;
    for (; bit < 8; bit++) if (this.masks[user]! & (1 << bit) && nth-- === 0) break;
    const type = CONSENT_TYPES[bit]!;
    const rng = Rng.for(this.population.seed, 'permission', index);
    const decision = rng.chance(0.8) !== (version % 2 === 1);
    return {
      id_user: String(USER_ID_BASE + user),
      id_consent_basic: type.id,
      last_update: lastUpdate,
      decision,
      name: type.name,
      consent_description: type.description,
    };
  }
}

function popcount(mask: number): number {
  let n = 0;
  for (; mask; mask &= mask - 1) n++;
  return n;
}
