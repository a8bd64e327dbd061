import { Rng } from '../random.js';
import { type NoiseSystem, type WrittenPerson, writtenPerson } from './noise.js';
import { Persons } from './persons.js';

/** Sizes at scale 1; everything but the match calendar grows linearly with the scale. */
export const SCALE_1 = {
  users: 20_000,
  profiles: 15_000,
  members: 3_000,
  tickets: 100_000,
  merchandiseItems: 15_000,
  participants: 12_000,
} as const;

export const SHARES = {
  /** Ticketing users that are a person's second account. */
  secondAccounts: 0.04,
  /** Customer profiles whose person also has a ticketing user. */
  profilesWithUser: 0.6,
  /** Members whose phone matches no ticketing user. */
  membersWithoutUser: 0.1,
  /** Persons who share a household mailbox with another person. */
  households: 0.03,
} as const;

/**
 * Who exists and which records each real person has. This is the ground truth of
 * identity resolution; record contents are generated from it on demand.
 */
export class Population {
  readonly persons: Persons;
  /** Ticketing user index → person. */
  readonly userPerson: Int32Array;
  /** Customer profile index → person. */
  readonly profilePerson: Int32Array;
  /** Member index → person. */
  readonly memberPerson: Int32Array;
  /** Person index → their (first) ticketing user index, or -1. */
  readonly personUser: Int32Array;
  /** Person index → their customer profile index, or -1. */
  readonly personProfile: Int32Array;

  constructor(
    readonly seed: number,
    readonly scale: number,
    /** Real-world noise in names, e-mails, phones and households (see noise.ts); off keeps the data as before. */
    readonly noise = false,
  ) {
    const users = Math.max(40, Math.round(SCALE_1.users * scale));
    const profiles = Math.max(30, Math.round(SCALE_1.profiles * scale));
    const members = Math.max(10, Math.round(SCALE_1.members * scale));
    const secondAccounts = Math.round(users * SHARES.secondAccounts);
    const primaryUsers = users - secondAccounts;
    const both = Math.min(primaryUsers, Math.round(profiles * SHARES.profilesWithUser));
    const memberOnly = Math.round(members * SHARES.membersWithoutUser);
    const count = primaryUsers + (profiles - both) + memberOnly;
    const rng = Rng.for(seed, 'population');

    const shuffled = Int32Array.from({ length: count }, (_, i) => i);
    rng.shuffleInPlace(shuffled);
    const ticketingPersons = shuffled.subarray(0, primaryUsers);

    this.userPerson = new Int32Array(users);
    this.userPerson.set(ticketingPersons);
    for (let i = primaryUsers; i < users; i++) this.userPerson[i] = ticketingPersons[rng.int(0, primaryUsers - 1)]!;
    rng.shuffleInPlace(this.userPerson);

    this.profilePerson = shuffled.slice(primaryUsers - both, primaryUsers - both + profiles);
    rng.shuffleInPlace(this.profilePerson);

    const linkedMembers = shuffled.slice(0, primaryUsers);
    rng.shuffleInPlace(linkedMembers);
    this.memberPerson = new Int32Array(members);
    this.memberPerson.set(linkedMembers.subarray(0, members - memberOnly));
    this.memberPerson.set(shuffled.subarray(count - memberOnly), members - memberOnly);
    rng.shuffleInPlace(this.memberPerson);

    const householdHead = new Int32Array(count).fill(-1);
    const partners = shuffled.slice();
    rng.shuffleInPlace(partners);
    const pairs = Math.floor((count * SHARES.households) / 2);
    for (let k = 0; k < pairs; k++) householdHead[partners[2 * k + 1]!] = partners[2 * k]!;
    this.persons = new Persons(seed, count, householdHead, noise);

    this.personUser = inverse(count, this.userPerson);
    this.personProfile = inverse(count, this.profilePerson);
  }

  /** Person `index` as `system` wrote them: the person itself when noise is off. */
  written(system: NoiseSystem, index: number): WrittenPerson {
    const person = this.persons.get(index);
    return this.noise ? writtenPerson(this.seed, system, person) : { person, noise: [] };
  }
}

function inverse(count: number, map: Int32Array): Int32Array {
  const out = new Int32Array(count).fill(-1);
  for (let i = 0; i < map.length; i++) if (out[map[i]!] === -1) out[map[i]!] = i;
  return out;
}
