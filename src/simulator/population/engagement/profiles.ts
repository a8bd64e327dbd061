import { Rng } from '../../random.js';
import { PHONE_STYLES, type Person, formatPhone, typedEmail } from '../persons.js';
import type { Population } from '../population.js';
import { iso } from '../time.js';
import { segmentOf } from '../../store/sorted.js';
import { ProfileRevisions } from './profile-revisions.js';

export const PROFILE_ID_BASE = 1_000_000;
export const PERSON_ID_BASE = 5_000_000;

/** The ApiApp whose key the simulator hands out, and a second one (a CRM sync) it does not. */
export const SIMULATOR_API_APP = 1;
export const CRM_API_APP = 2;

/** Hidden profile tags, searchable with `searchQuery=Tag...`. */
export const PROFILE_TAGS = ['season-ticket', 'vip', 'newsletter', 'kids-club', 'away-fan', 'volunteer', 'family'] as const;

/** Keys of the organization's "Additional authentication fields" setting. */
const AUTH_FIELDS = [
  ['caf-101', ['Nordfront', 'Klanen', 'Supporterklubben', 'Familietribunen']],
  ['caf-102', ['S', 'M', 'L', 'XL']],
] as const;

/** What a profile's people and its record are both derived from. */
export interface ProfileCore {
  readonly index: number;
  readonly id: number;
  readonly person: Person;
  /** As typed into the platform: personal (70%), work (18%), or none. */
  readonly email: string | null;
  readonly emailKind: 'personal' | 'work' | 'none';
  /** As typed, in one of several forms; null when missing. */
  readonly phone: string | null;
  readonly named: boolean;
  readonly nickname: string | null;
  readonly tags: readonly string[];
  readonly language: string;
}

/**
 * Customer profiles and the layout of their linked people. Profile `i` belongs to
 * person `population.profilePerson[i]`; its people are the slots
 * `peopleStart[i] .. peopleStart[i+1]`, and `peopleApp` says which ApiApp (if any)
 * created each of them. Records are generated on demand.
 */
export class CustomerProfiles {
  readonly count: number;
  readonly peopleStart: Uint32Array;
  /** People index → 0 (not an identity), SIMULATOR_API_APP or CRM_API_APP. */
  readonly peopleApp: Uint8Array;
  /** Changes made while the simulator runs, applied on top of the generated records. */
  readonly revisions: ProfileRevisions;
  private readonly removed: Uint8Array;
  private live: Uint32Array;

  constructor(
    private readonly population: Population,
    readonly orgId: string,
  ) {
    this.count = population.profilePerson.length;
    this.revisions = new ProfileRevisions(population.seed);
    this.removed = new Uint8Array(this.count);
    this.live = Uint32Array.from({ length: this.count }, (_, i) => i);
    this.peopleStart = new Uint32Array(this.count + 1);
    // Two passes over the (cheap, seeded) plans keep only the typed arrays in memory.
    for (let i = 0; i < this.count; i++) this.peopleStart[i + 1] = this.peopleStart[i]! + this.peoplePlan(i).length;
    this.peopleApp = new Uint8Array(this.peopleStart[this.count]!);
    for (let i = 0; i < this.count; i++) this.peopleApp.set(this.peoplePlan(i), this.peopleStart[i]!);
  }

  get tenantId(): number {
    return Number(this.orgId);
  }

  get liveCount(): number {
    return this.live.length;
  }

  /** Live profile indices in id order. */
  liveIndices(): Uint32Array {
    return this.live;
  }

  isLive(index: number): boolean {
    return index >= 0 && index < this.count && this.removed[index] === 0;
  }

  /** Removes a profile and with it its people. */
  remove(index: number): void {
    if (!this.isLive(index)) return;
    this.removed[index] = 1;
    this.live = this.live.filter((i) => i !== index);
  }

  idOf(index: number): number {
    return PROFILE_ID_BASE + index;
  }

  /** The live profile with this id as the API shows it, or -1. */
  indexOfId(id: string): number {
    if (!/^\d+$/.test(id)) return -1;
    const index = Number(id) - PROFILE_ID_BASE;
    return this.isLive(index) ? index : -1;
  }

  personOf(index: number): number {
    return this.population.profilePerson[index]!;
  }

  /** The profile a people index belongs to (binary search over the offsets). */
  profileOfPeople(peopleIndex: number): number {
    return segmentOf(this.peopleStart, peopleIndex);
  }

  peopleIds(index: number): string[] {
    const ids: string[] = [];
    for (let g = this.peopleStart[index]!; g < this.peopleStart[index + 1]!; g++) ids.push(String(PERSON_ID_BASE + g));
    return ids;
  }

  core(index: number): ProfileCore {
    const rng = Rng.for(this.population.seed, 'eng-profile', index);
    const { person } = this.population.written('engagement_customer_profile', this.personOf(index));
    const roll = rng.next();
    const emailKind = roll < 0.7 ? 'personal' : roll < 0.88 ? 'work' : 'none';
    const email = emailKind === 'personal' ? typedEmail(person.email, rng) : emailKind === 'work' ? typedEmail(person.workEmail, rng) : null;
    const phone = rng.chance(0.78) ? formatPhone(person.phone, rng.pick(PHONE_STYLES)) : null;
    const named = rng.chance(0.92);
    const nickname = rng.chance(0.2) ? `${person.firstName.toLowerCase()}${rng.int(1, 99)}` : null;
    const tags = PROFILE_TAGS.filter(() => rng.chance(0.2));
    const language = rng.weighted([['nb', 80], ['en', 12], ['sv', 5], ['nn', 3]] as const);
    return { index, id: this.idOf(index), person, email, emailKind, phone, named, nickname, tags, language };
  }

  /** The profile as the API serves it. */
  record(index: number): Record<string, unknown> {
    const core = this.core(index);
    const { person } = core;
    const rng = Rng.for(this.population.seed, 'eng-profile-fields', index);
    const firstName = core.named ? person.firstName : '';
    const lastName = core.named ? person.lastName : '';
    const fullName = core.named && rng.chance(0.6) ? `${firstName} ${lastName}` : '';
    const hasAddress = rng.chance(0.65);
    const fields: [string, string][] = [];
    for (const [key, values] of AUTH_FIELDS) if (rng.chance(0.35)) fields.push([key, rng.pick(values)]);
    return this.revisions.profile({
      id: String(core.id),
      href: `/v2/${this.orgId}/customerinsights/customerprofiles/${core.id}`,
      type: 'customerProfiles',
      tenantId: this.tenantId,
      displayName: fullName || `${firstName} ${lastName}`.trim(),
      fullName,
      firstName,
      lastName,
      dateOfBirth: rng.chance(0.6) ? iso(Date.parse(`${person.birthday}T00:00:00Z`)) : null,
      imageUrl: rng.chance(0.3) ? `https://media.engage.example/profiles/${core.id}.jpg` : '',
      gender: rng.chance(0.75) ? person.gender : 'undefined',
      location: hasAddress && rng.chance(0.5) ? `${person.city}, Norway` : '',
      languageCode: core.language,
      email: core.email ?? (rng.chance(0.5) ? '' : null),
      street: hasAddress ? person.street : '',
      postalCode: hasAddress ? person.zip : '',
      city: hasAddress ? person.city : '',
      county: hasAddress ? person.county : '',
      country: hasAddress ? 'Norway' : '',
      timeZone: rng.weighted([['Europe/Oslo', 90], ['Europe/Stockholm', 4], [null, 6]] as const),
      phoneNumber: core.phone ?? (rng.chance(0.5) ? '' : null),
      customAuthenticationFields: JSON.stringify(Object.fromEntries(fields)),
      links: { people: this.peopleIds(index) },
    }, index);
  }

  /** How many people a profile has and which of them an ApiApp created. */
  private peoplePlan(index: number): number[] {
    const rng = Rng.for(this.population.seed, 'eng-people-plan', index);
    const hasUser = this.population.personUser[this.personOf(index)]! >= 0;
    const app1 = hasUser && rng.chance(0.4) ? 1 : 0;
    const app2 = rng.chance(0.05) ? 1 : 0;
    const count = Math.max(rng.weighted([[1, 55], [2, 35], [3, 10]] as const), app1 + app2);
    const plan = new Array<number>(count).fill(0);
    if (app1) plan[count - 1] = SIMULATOR_API_APP;
    if (app2) plan[count - 1 - app1] = CRM_API_APP;
    return plan;
  }
}
