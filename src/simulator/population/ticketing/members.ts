import { CursorResource, type Item } from '../../store/cursor-resource.js';
import { Rng } from '../../random.js';
import { PHONE_STYLES, formatPhone } from '../persons.js';
import type { Population } from '../population.js';
import { SIX_YEARS_MS } from '../time.js';

export const MEMBER_ID_BASE = 501;

const CATEGORIES = [
  { id: 1, name: 'Gold', pool: 40, perMatch: 6 },
  { id: 2, name: 'Silver', pool: 20, perMatch: 4 },
  { id: 3, name: 'Bronze', pool: 10, perMatch: 2 },
  { id: 4, name: 'Youth', pool: 10, perMatch: 2 },
  { id: 5, name: 'Honorary', pool: -1, perMatch: 4 },
] as const;

/** Members (`/api/members`): imported member entries linked to users by phone only. */
export class Members extends CursorResource {
  constructor(
    private readonly population: Population,
    nowMs: number,
  ) {
    const rng = Rng.for(population.seed, 'members');
    const lastUpdate = Float64Array.from(population.memberPerson, () => Math.floor(nowMs - rng.next() * SIX_YEARS_MS));
    super('members', lastUpdate);
  }

  keyOf(item: Item): string {
    return String(item.id);
  }

  protected newKey(index: number): Item {
    return { id: MEMBER_ID_BASE + index };
  }

  personOf(index: number): number {
    return this.population.memberPerson[this.originOf(index)]!;
  }

  protected generate(index: number, version: number, lastUpdate: string): Item {
    const rng = Rng.for(this.population.seed, 'member', index);
    const { person } = this.population.written('ticketing_member', this.population.memberPerson[index]!);
    const category = rng.weighted(CATEGORIES.map((c) => [c, c.id === 5 ? 2 : 25] as const));
    const total = category.pool;
    const used = total < 0 ? rng.int(0, 60) : Math.min(total, rng.int(0, total) + version);
    return {
      id: MEMBER_ID_BASE + index,
      last_update: lastUpdate,
      name: rng.chance(0.8) ? `${person.firstName} ${person.lastName}` : `${person.lastName.toUpperCase()}, ${person.firstName}`,
      phone: formatPhone(person.phone, rng.pick(PHONE_STYLES)),
      max_tickets_per_match: category.perMatch,
      tasks: rng.chance(0.15) ? rng.pick(['Volunteer: steward', 'Board member', 'Youth coach', 'Volunteer: kiosk']) : null,
      ticket_pool_used: used,
      category_id: category.id,
      category: category.name,
      ticket_pool_total: total,
      ticket_pool_total_text: total < 0 ? 'Unlimited' : `${total} tickets`,
    };
  }
}
