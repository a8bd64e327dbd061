import type { ClubProfile } from '../../clubs/club-profile.js';
import { Rng } from '../../random.js';
import { rfc3966, typedEmail } from '../persons.js';
import type { Population } from '../population.js';
import { USER_ID_BASE } from '../ticketing/users.js';
import { CRM_API_APP, type CustomerProfiles, PERSON_ID_BASE, SIMULATOR_API_APP } from './profiles.js';

/** ApiApp 2's externalIds are `crm-<CRM_NUMBER_BASE + people index>`. */
const CRM_NUMBER_BASE = 12_000;
const YEAR_MS = 365.25 * 86_400_000;

/** A social network, or the network the club's profile gives its ApiApps' people. */
type Network = 'email' | 'facebook' | 'google' | 'apple' | 'sms' | (string & {});

/** The values a linked person and, when it is one, its identity view share. */
interface PeopleCore {
  readonly index: number;
  readonly profileIndex: number;
  readonly app: number;
  readonly network: Network;
  readonly systemId: number | null;
  readonly externalId: string | null;
  readonly firstName: string;
  readonly lastName: string;
  readonly fullName: string;
  readonly nickName: string | null;
  readonly gender: 'male' | 'female' | 'undefined' | null;
  readonly dateOfBirth: string | null;
  readonly isAdult: 'true' | 'false' | 'unspecified' | null;
  readonly email: string | null;
  readonly phone: string;
  readonly imageUrl: string | null;
  readonly language: string;
  readonly disabled: boolean;
}

/**
 * The linked persons (people) of customer profiles. Identities are the people an ApiApp
 * created: ApiApp 1's carry the ticketing user id as externalId (the join the loader's
 * own app would make), ApiApp 2's a CRM number; their `network` and `systemId` are the
 * club's (`ClubProfile.apiApps`).
 */
export class People {
  constructor(
    private readonly population: Population,
    private readonly profiles: CustomerProfiles,
    private readonly nowMs: number,
    private readonly apiApps: ClubProfile['apiApps'],
  ) {}

  get count(): number {
    return this.profiles.peopleStart[this.profiles.count]!;
  }

  idOf(index: number): number {
    return PERSON_ID_BASE + index;
  }

  isLive(index: number): boolean {
    return index >= 0 && index < this.count && this.profiles.isLive(this.profiles.profileOfPeople(index));
  }

  /** The live person with this id as the API shows it, or -1. */
  indexOfId(id: string): number {
    if (!/^\d+$/.test(id)) return -1;
    const index = Number(id) - PERSON_ID_BASE;
    return this.isLive(index) ? index : -1;
  }

  /** The ApiApp that created this person, or 0 when it is not an identity. */
  appOf(index: number): number {
    return this.profiles.peopleApp[index]!;
  }

  *liveIndices(): Generator<number> {
    const { peopleStart } = this.profiles;
    for (const profile of this.profiles.liveIndices()) {
      for (let g = peopleStart[profile]!; g < peopleStart[profile + 1]!; g++) yield g;
    }
  }

  /** The live identity of `app` with this externalId, or -1. */
  indexOfExternalId(app: number, externalId: string): number {
    if (app === SIMULATOR_API_APP && /^\d+$/.test(externalId)) {
      const user = Number(externalId) - USER_ID_BASE;
      const person = this.population.userPerson[user];
      if (person === undefined || this.population.personUser[person] !== user) return -1;
      const profile = this.population.personProfile[person]!;
      if (profile < 0 || !this.profiles.isLive(profile)) return -1;
      const { peopleStart } = this.profiles;
      for (let g = peopleStart[profile]!; g < peopleStart[profile + 1]!; g++) if (this.appOf(g) === app) return g;
      return -1;
    }
    const crm = /^crm-(\d+)$/.exec(externalId);
    if (app === CRM_API_APP && crm) {
      const index = Number(crm[1]) - CRM_NUMBER_BASE;
      return this.isLive(index) && this.appOf(index) === app ? index : -1;
    }
    return -1;
  }

  /** The person as served under `linked.people`. */
  record(index: number): Record<string, unknown> {
    const core = this.core(index);
    const rng = Rng.for(this.population.seed, 'eng-person-fields', index);
    const person = this.population.persons.get(this.profiles.personOf(core.profileIndex));
    const profileUrl = core.network === 'facebook' ? `https://www.facebook.com/profile.php?id=${core.externalId}` : null;
    const profileName =
      core.network === 'facebook' || core.network === 'google' ? core.fullName || null
      : core.network === 'email' ? core.email
      : core.network === 'sms' ? core.phone
      : null;
    const isFirstPerson = index === this.profiles.peopleStart[core.profileIndex];
    return this.profiles.revisions.person({
      id: String(this.idOf(index)),
      type: 'people',
      externalId: core.externalId,
      network: core.network,
      customData: rng.chance(0.15) ? JSON.stringify({ signupSource: rng.pick(['app', 'web', 'matchday-kiosk']) }) : null,
      profileUrl,
      profileName,
      firstName: core.firstName,
      lastName: core.lastName,
      fullName: core.fullName,
      displayName: core.fullName || `${core.firstName} ${core.lastName}`.trim(),
      gender: core.gender,
      dateOfBirth: core.dateOfBirth,
      isAdult: core.isAdult,
      location: rng.chance(0.4) ? person.city : null,
      profileImageUrl: core.imageUrl,
      customerProfileId: this.profiles.idOf(core.profileIndex),
      emailAddress: core.email,
      tenantId: this.profiles.tenantId,
      isDisabled: core.disabled,
      systemId: core.systemId,
      language: core.language,
      country: rng.chance(0.7) ? 'NO' : null,
      customAuthenticationFields: rng.chance(0.2) ? JSON.stringify({ 'caf-101': 'Nordfront' }) : null,
    }, core.profileIndex, isFirstPerson);
  }

  /** The identity view (GET identities), or undefined when no ApiApp created this person. */
  identity(index: number): Record<string, unknown> | undefined {
    const core = this.core(index);
    if (core.app === 0) return undefined;
    const rng = Rng.for(this.population.seed, 'eng-identity-fields', index);
    const person = this.population.persons.get(this.profiles.personOf(core.profileIndex));
    const hasAddress = rng.chance(0.7);
    const authenticationMethod = core.app === SIMULATOR_API_APP ? (core.email ? 'email' : 'none') : rng.pick(['none', 'other'] as const);
    const crm = core.app === CRM_API_APP ? { crmSegment: rng.pick(['A', 'B', 'C']) } : {};
    return {
      id: String(this.idOf(index)),
      externalId: core.externalId,
      authenticationMethod,
      fullName: core.fullName,
      firstName: core.firstName,
      lastName: core.lastName,
      nickName: core.nickName,
      gender: core.gender,
      dateOfBirth: core.dateOfBirth,
      profileImageUrl: core.imageUrl ?? '',
      isAdult: core.isAdult,
      email: core.email ?? '',
      phone: core.phone,
      street: hasAddress ? person.street : '',
      postalCode: hasAddress ? person.zip : '',
      city: hasAddress ? person.city : '',
      county: hasAddress ? person.county : '',
      country: hasAddress ? 'NO' : '',
      timeZone: 'Europe/Oslo',
      extendedProperties: { ...crm, ...this.customFields(rng) },
      customAuthenticationFields: {},
      customerProfileId: this.profiles.idOf(core.profileIndex),
    };
  }

  /**
   * The club's custom profile fields (the document leaves their shape open): a flat object
   * of a few optional keys, each present for a share of the identities.
   */
  private customFields(rng: Rng): Record<string, unknown> {
    const fields: Record<string, unknown> = {};
    if (rng.chance(0.5)) fields.favouritePlayer = rng.pick(['Berg', 'Hansen', 'Solberg', 'Lie', 'Moen']);
    if (rng.chance(0.3)) fields.shirtSize = rng.pick(['S', 'M', 'L', 'XL']);
    if (rng.chance(0.2)) fields.memberSince = 2000 + rng.int(0, 25);
    return fields;
  }

  private core(index: number): PeopleCore {
    const profileIndex = this.profiles.profileOfPeople(index);
    const slot = index - this.profiles.peopleStart[profileIndex]!;
    const profile = this.profiles.core(profileIndex);
    const { person } = profile;
    const rng = Rng.for(this.population.seed, 'eng-person', index);
    const app = this.appOf(index);
    const apiApp = app === SIMULATOR_API_APP || app === CRM_API_APP ? this.apiApps[app] : undefined;
    let network: Network =
      apiApp ? apiApp.network
      : slot === 0 ? rng.weighted([['email', 55], ['facebook', 20], ['google', 15], ['apple', 10]] as const)
      : rng.weighted([['facebook', 35], ['google', 25], ['apple', 10], ['sms', 15], ['email', 15]] as const);
    if (network === 'email' && slot === 0 && !profile.email) network = 'facebook';

    let email: string | null;
    if (app === SIMULATOR_API_APP) email = typedEmail(person.email, rng);
    else if (app === CRM_API_APP) email = rng.chance(0.8) ? person.email : person.workEmail;
    else if (slot === 0) email = profile.email;
    else if (network === 'email') email = typedEmail(rng.chance(0.5) ? person.oldEmail : person.email, rng);
    else if (network === 'sms') email = null;
    else if (network === 'apple' && rng.chance(0.5)) email = `${rng.digits(6)}${rng.pick(['ab', 'kq', 'zt'])}@privaterelay.appleid.com`;
    else email = rng.chance(0.6) ? typedEmail(person.email, rng) : null;

    const externalId =
      app === SIMULATOR_API_APP ? String(USER_ID_BASE + this.population.personUser[person.index]!)
      : app === CRM_API_APP ? `crm-${CRM_NUMBER_BASE + index}`
      : network === 'facebook' ? `10${rng.digits(13)}`
      : network === 'google' ? `1${rng.digits(20)}`
      : network === 'apple' ? `00${rng.digits(4)}.${rng.digits(8)}.${rng.digits(4)}`
      : null;

    const named = app !== 0 || network !== 'email' || rng.chance(0.7);
    const firstName = named ? person.firstName : '';
    const lastName = named ? person.lastName : '';
    const hasBirthday = rng.chance(network === 'facebook' || app !== 0 ? 0.8 : 0.4);
    const birthMs = Date.parse(`${person.birthday}T00:00:00Z`);
    const adultRoll = rng.next();
    return {
      index,
      profileIndex,
      app,
      network,
      systemId: apiApp ? apiApp.systemId : null,
      externalId,
      firstName,
      lastName,
      fullName: named && rng.chance(0.8) ? `${firstName} ${lastName}` : '',
      nickName: profile.nickname,
      gender: rng.chance(0.1) ? null : rng.chance(0.8) ? person.gender : 'undefined',
      // The sample shape: date, space, time with milliseconds, Z.
      dateOfBirth: hasBirthday ? `${person.birthday} 00:00:00.000Z` : null,
      isAdult: adultRoll < 0.1 ? null : adultRoll < 0.35 ? 'unspecified' : this.nowMs - birthMs >= 18 * YEAR_MS ? 'true' : 'false',
      email,
      phone: rng.chance(0.7) ? rfc3966(person.phone) : '',
      imageUrl: network === 'facebook' ? `https://graph.facebook.com/${externalId}/picture` : null,
      language: profile.language,
      disabled: rng.chance(0.03),
    };
  }
}
