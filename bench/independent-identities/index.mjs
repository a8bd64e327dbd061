// An identity set labelled with its ground truth and generated without the simulator: names,
// birth dates, e-mails and phones from @faker-js/faker's Norwegian locale (fakerNB_NO), noise
// from ./noise.mjs, households and namesakes from here. It shares no list and no code with
// src/simulator, so identity resolution is not graded on its own assumptions alone.
// The records are the raw items each API would send; ./load.mjs writes them through the
// extractor's own sink and `fanlake load`, as real data arrives.
import { fakerNB_NO as faker } from '@faker-js/faker';
import { NICKNAMES, mobileNumber, noisy, writtenPhone } from './noise.mjs';

/** Every date is drawn relative to this one, so a seed gives the same set on every day it runs. */
const REFERENCE_DATE = '2026-06-01T00:00:00Z';

/** How persons are written into the systems, and how many share a mailbox or a name. */
export const INDEPENDENT_SHARES = {
  /** Persons with a second given name (written in some systems only: see noise.mjs). */
  middleName: 0.2,
  /** Persons who get a housemate: same last name and e-mail, half of them the same phone, another first name. */
  household: 0.05,
  /** Housemates who are the person's twin: the birth date too, another first name. */
  twin: 0.3,
  /** Persons who get a namesake: same first and last name and birth year, their own e-mail and phone. */
  namesake: 0.04,
  ticketingUser: 0.85,
  /** A second ticketing account of a person with a user: a new e-mail, often the same phone. */
  secondAccount: 0.04,
  member: 0.3,
  customerProfile: 0.6,
  /** Profiles of persons with a ticketing user that also carry the loader's ApiApp identity (externalId = user id). */
  apiAppIdentity: 0.2,
  userBirthDate: 0.6,
  userPhone: 0.75,
  memberPhone: 0.9,
  profileBirthDate: 0.5,
  profilePhone: 0.5,
};

/**
 * `persons` base persons (households and namesakes come on top) and their records.
 * @param {{ persons: number, seed: number }} options
 * @returns {{ raw: Record<string, Record<string, unknown>[]>, truth: { system: string, recordId: string, personId: number, noise: string[] }[], persons: number }}
 */
export function independentIdentities({ persons, seed }) {
  faker.seed(seed);
  usedEmails.clear();
  const people = [];
  for (let index = 0; index < persons; index++) {
    const person = newPerson(people.length);
    people.push(person);
    if (chance(INDEPENDENT_SHARES.household)) people.push(housemateOf(person, people.length));
    if (chance(INDEPENDENT_SHARES.namesake)) people.push(namesakeOf(person, people.length));
  }
  const raw = { ticketing_users: [], ticketing_members: [], engagement_customer_profiles: [], engagement_people: [] };
  const truth = [];
  const ids = { user: 10_000, member: 50_000, profile: 700_000, person: 900_000 };
  const record = (system, recordId, person, noise) => truth.push({ system, recordId: String(recordId), personId: person.id, noise });
  const updated = faker.date.recent({ days: 400, refDate: REFERENCE_DATE }).toISOString();

  for (const person of people) {
    let userId;
    if (chance(INDEPENDENT_SHARES.ticketingUser)) {
      const accounts = chance(INDEPENDENT_SHARES.secondAccount) ? 2 : 1;
      for (let account = 0; account < accounts; account++) {
        const written = noisy(faker, account === 0 ? person : { ...person, email: uniqueEmail({ firstName: person.firstName }) }, uniqueEmail);
        const id = ids.user++;
        userId ??= id;
        raw.ticketing_users.push({
          id, last_update: updated, enabled: true, name_first: written.firstName, name_last: written.lastName, email: written.email,
          phone: chance(INDEPENDENT_SHARES.userPhone) ? writtenPhone(faker, written.phone) : '',
          birthday: chance(INDEPENDENT_SHARES.userBirthDate) ? person.birthDate : null,
        });
        record('ticketing_user', id, person, account === 0 ? written.noise : [...written.noise, 'secondAccount']);
      }
    }
    if (chance(INDEPENDENT_SHARES.member)) {
      const written = noisy(faker, person, uniqueEmail);
      const id = ids.member++;
      const name = chance(0.3) ? `${written.lastName.toUpperCase()}, ${written.firstName}` : `${written.firstName} ${written.lastName}`;
      raw.ticketing_members.push({
        id, last_update: updated, name, phone: chance(INDEPENDENT_SHARES.memberPhone) ? writtenPhone(faker, written.phone) : '',
        category: 'Sølv', category_id: 2,
      });
      record('ticketing_member', id, person, written.noise);
    }
    if (chance(INDEPENDENT_SHARES.customerProfile)) {
      const written = noisy(faker, person, uniqueEmail);
      const profileId = ids.profile++;
      const birth = chance(INDEPENDENT_SHARES.profileBirthDate) ? `${person.birthDate}T00:00:00.000Z` : null;
      raw.engagement_customer_profiles.push({
        id: String(profileId), type: 'customerProfiles', firstName: written.firstName, lastName: written.lastName, email: written.email,
        phoneNumber: chance(INDEPENDENT_SHARES.profilePhone) ? writtenPhone(faker, written.phone) : null, dateOfBirth: birth,
      });
      record('engagement_customer_profile', profileId, person, written.noise);
      // the profile's sign-up identity carries the profile's spelling
      const personId = ids.person++;
      raw.engagement_people.push({
        id: String(personId), type: 'people', network: 'email', customerProfileId: profileId,
        firstName: written.firstName, lastName: written.lastName, emailAddress: written.email, dateOfBirth: birth,
      });
      record('engagement_person', personId, person, written.noise);
      if (userId !== undefined && chance(INDEPENDENT_SHARES.apiAppIdentity)) {
        const appPersonId = ids.person++;
        raw.engagement_people.push({
          id: String(appPersonId), type: 'people', network: 'apiApp', systemId: 1, externalId: String(userId), customerProfileId: profileId,
          firstName: written.firstName, lastName: written.lastName,
        });
        record('engagement_person', appPersonId, person, written.noise);
      }
    }
  }
  return { raw, truth, persons: people.length };
}

// A provider never hands one address to two people (households share theirs on purpose).
const usedEmails = new Set();

function uniqueEmail(names) {
  for (;;) {
    const email = faker.internet.email(names);
    if (!usedEmails.has(email.toLowerCase())) {
      usedEmails.add(email.toLowerCase());
      return email;
    }
  }
}

function chance(share) {
  return faker.number.float() < share;
}

function newPerson(id) {
  const sex = faker.person.sex();
  const firstName = faker.person.firstName(sex);
  const lastName = faker.person.lastName();
  const middleName = chance(INDEPENDENT_SHARES.middleName) ? otherFirstName(sex, firstName) : undefined;
  return {
    id, sex, firstName, middleName, lastName,
    birthDate: faker.date.birthdate({ mode: 'age', min: 16, max: 85, refDate: REFERENCE_DATE }).toISOString().slice(0, 10),
    email: uniqueEmail({ firstName, lastName }),
    phone: mobileNumber(faker),
  };
}

/** A first name other than `not`, and none that it or a nickname of it is a nickname of (no twins Maria and Maja, Kristian and Kristoffer). */
function otherFirstName(sex, not) {
  const forms = (name) => [name, ...(NICKNAMES[name] ?? [])];
  for (;;) {
    const name = faker.person.firstName(sex);
    if (!forms(name).some((form) => forms(not).includes(form))) return name;
  }
}

/** Same last name and mailbox, another first name; the same phone half the time, the same birth date (a twin) a share of the time. */
function housemateOf(head, id) {
  const sex = faker.person.sex();
  const person = newPerson(id);
  const phone = chance(0.5) ? head.phone : person.phone;
  const birthDate = chance(INDEPENDENT_SHARES.twin) ? head.birthDate : person.birthDate;
  return { ...person, sex, firstName: otherFirstName(sex, head.firstName), lastName: head.lastName, email: head.email, phone, birthDate };
}

/** Same first and last name and birth year, a different day; an e-mail and phone of their own. */
function namesakeOf(original, id) {
  const person = newPerson(id);
  const year = original.birthDate.slice(0, 4);
  let birthDate = original.birthDate;
  while (birthDate === original.birthDate) birthDate = `${year}-${faker.date.birthdate({ refDate: REFERENCE_DATE }).toISOString().slice(5, 10)}`;
  if (birthDate.endsWith('02-29')) birthDate = `${year}-02-28`;
  return { ...person, sex: original.sex, firstName: original.firstName, middleName: undefined, lastName: original.lastName, birthDate, email: uniqueEmail({ firstName: original.firstName, lastName: original.lastName }) };
}
