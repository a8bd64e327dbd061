import { CursorResource, type Item } from '../../store/cursor-resource.js';
import { Rng } from '../../random.js';
import { PHONE_STYLES, formatPhone, typedEmail } from '../persons.js';
import type { Population } from '../population.js';
import { DAY_MS, SIX_YEARS_MS, iso } from '../time.js';
import { upperBound } from '../../store/sorted.js';

export const USER_ID_BASE = 10_001;

/** Ticketing users (`/api/users`): registered supporters, some with a second account. */
export class Users extends CursorResource {
  /** Account creation times, ascending with the index (ids are issued in creation order). */
  readonly created: Float64Array;

  constructor(
    private readonly population: Population,
    private readonly nowMs: number,
  ) {
    const count = population.userPerson.length;
    const rng = Rng.for(population.seed, 'users');
    const created = new Float64Array(count);
    for (let i = 0; i < count; i++) created[i] = nowMs - SIX_YEARS_MS + rng.next() * (SIX_YEARS_MS - DAY_MS);
    created.sort();
    const lastUpdate = new Float64Array(count);
    for (let i = 0; i < count; i++) lastUpdate[i] = Math.floor(created[i]! + rng.next() * (nowMs - created[i]!));
    super('users', lastUpdate);
    this.created = created;
  }

  keyOf(item: Item): string {
    return String(item.id);
  }

  protected newKey(index: number): Item {
    return { id: USER_ID_BASE + index };
  }

  personOf(index: number): number {
    return this.population.userPerson[this.originOf(index)]!;
  }

  /** The newest user index created before `ms` (buyers must exist when they buy). */
  existingBefore(ms: number): number {
    return Math.max(1, upperBound(this.created, ms));
  }

  protected generate(index: number, version: number, lastUpdate: string): Item {
    const rng = Rng.for(this.population.seed, 'user', index);
    const personIndex = this.population.userPerson[index]!;
    const { person } = this.population.written('ticketing_user', personIndex);
    const isSecond = this.population.personUser[personIndex] !== index;
    const email = isSecond && rng.chance(0.5) ? person.oldEmail : typedEmail(person.email, rng);
    const named = rng.chance(0.97);
    const created = this.created[index]!;
    const lastUpdateMs = Date.parse(lastUpdate);
    const lastLogin = created + rng.next() * (lastUpdateMs - created);
    const hasAddress = rng.chance(0.8);
    return {
      id: USER_ID_BASE + index,
      last_update: lastUpdate,
      username: isSecond ? `${email.trim().split('@')[0]}${rng.int(1, 9)}` : email.trim().toLowerCase(),
      name_first: named ? person.firstName : null,
      name_last: named ? person.lastName : null,
      completename: named ? `${person.firstName} ${person.lastName}` : email.trim().split('@')[0],
      birthday: rng.chance(0.7) ? person.birthday : null,
      gender: rng.chance(0.6) ? (person.gender === 'male' ? 'M' : 'F') : null,
      email,
      phone: rng.chance(0.93) ? formatPhone(person.phone, rng.pick(PHONE_STYLES)) : '',
      enabled: rng.chance(0.97),
      address: hasAddress ? person.street : null,
      city: hasAddress ? person.city : null,
      country: hasAddress ? 'NO' : null,
      zip_code: hasAddress ? person.zip : null,
      user_created: iso(created),
      user_last_login: iso(version > 0 ? lastUpdateMs : lastLogin),
      user_category: rng.weighted([['standard', 85], ['season_ticket', 8], ['vip', 5], ['staff', 2]] as const),
    };
  }
}
