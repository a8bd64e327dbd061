import type { TicketingConsent } from '../../clubs/club-profile.js';
import { CursorResource, type Item } from '../../store/cursor-resource.js';
import { Rng } from '../../random.js';
import type { Population } from '../population.js';
import { USER_ID_BASE, type Users } from './users.js';
import { segmentOf } from '../../store/sorted.js';

/**
 * User permissions (`/api/user_permission`): one row per user and consent type answered. The
 * documents name no consent types; the club profile declares them (at most eight).
 */
export class UserPermissions extends CursorResource {
  private readonly start: Uint32Array;
  private readonly masks: Uint8Array;

  constructor(
    private readonly population: Population,
    private readonly users: Users,
    nowMs: number,
    private readonly consentTypes: readonly TicketingConsent[],
  ) {
    const count = users.created.length;
    const masks = new Uint8Array(count);
    const start = new Uint32Array(count + 1);
    const rng = Rng.for(population.seed, 'permissions');
    for (let u = 0; u < count; u++) {
      let mask = 0;
      consentTypes.forEach((type, bit) => {
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
    const type = this.consentTypes[bit]!;
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
