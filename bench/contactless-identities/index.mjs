// A labelled identity set without e-mail or phone, in the manner of the public record-linkage
// benchmarks (two files of people, every person in both, names, birth dates and postal
// addresses, noise in about half the records): each person is one ticketing user and one
// engagement customer profile. Names and addresses come from @faker-js/faker's Australian
// locale, noise from this file; it shares no list and no code with src/simulator nor with
// bench/independent-identities' noise, so identity resolution is graded on evidence spread
// over names, birth date and address alone.
import { fakerEN_AU as faker } from '@faker-js/faker';

/** Every date is drawn relative to this one, so a seed gives the same set on every day it runs. */
const REFERENCE_DATE = '2026-06-01T00:00:00Z';

/** People per locality (a town and its postcode): a postcode or town is shared, a street address rarely. */
const PEOPLE_PER_LOCALITY = 20;

/** Share of records that carry noise, and how many changes a noisy record gets (1 to this). */
export const CONTACTLESS_NOISE = { noisyRecords: 0.5, maxChanges: 3 };

/** The kinds of change, drawn alike: a typo in a field, a field left empty, two fields swapped. */
const CHANGES = ['typo', 'typo', 'missing', 'swap'];
const TEXT_FIELDS = ['firstName', 'lastName', 'street', 'city'];
const ALL_FIELDS = ['firstName', 'lastName', 'birthDate', 'street', 'postcode', 'city'];
const SWAPS = ['names', 'dayMonth', 'streetCity'];

/**
 * `persons` persons, each written once as a ticketing user and once as a customer profile.
 * @param {{ persons: number, seed: number }} options
 * @returns {{ raw: Record<string, Record<string, unknown>[]>, truth: { system: string, recordId: string, personId: number, noise: string[] }[], persons: number }}
 */
export function contactlessIdentities({ persons, seed }) {
  faker.seed(seed);
  const raw = { ticketing_users: [], engagement_customer_profiles: [] };
  const truth = [];
  const updated = faker.date.recent({ days: 400, refDate: REFERENCE_DATE }).toISOString();
  const localities = Array.from({ length: Math.max(1, Math.round(persons / PEOPLE_PER_LOCALITY)) }, () => ({
    postcode: faker.location.zipCode('####'),
    city: faker.location.city(),
  }));
  for (let personId = 0; personId < persons; personId++) {
    const person = newPerson(faker.helpers.arrayElement(localities));
    const user = written(person);
    const userId = 20_000 + personId;
    raw.ticketing_users.push({
      id: userId, last_update: updated, enabled: true, name_first: user.firstName, name_last: user.lastName,
      birthday: user.birthDate, address: user.street, zip_code: user.postcode, city: user.city,
    });
    truth.push({ system: 'ticketing_user', recordId: String(userId), personId, noise: user.noise });
    const profile = written(person);
    const profileId = 800_000 + personId;
    raw.engagement_customer_profiles.push({
      id: String(profileId), type: 'customerProfiles', firstName: profile.firstName, lastName: profile.lastName,
      dateOfBirth: profile.birthDate ? `${profile.birthDate}T00:00:00.000Z` : null, street: profile.street, postalCode: profile.postcode, city: profile.city,
    });
    truth.push({ system: 'engagement_customer_profile', recordId: String(profileId), personId, noise: profile.noise });
  }
  return { raw, truth, persons };
}

function newPerson(locality) {
  const sex = faker.person.sex();
  return {
    firstName: faker.person.firstName(sex),
    lastName: faker.person.lastName(),
    birthDate: faker.date.birthdate({ mode: 'age', min: 16, max: 85, refDate: REFERENCE_DATE }).toISOString().slice(0, 10),
    street: `${faker.location.buildingNumber()} ${faker.location.street()}`,
    postcode: locality.postcode,
    city: locality.city,
  };
}

/** One system's copy of a person: half of them with one to three changes. */
function written(person) {
  const record = { ...person };
  const noise = [];
  if (faker.number.float() >= CONTACTLESS_NOISE.noisyRecords) return { ...record, noise };
  const changes = faker.number.int({ min: 1, max: CONTACTLESS_NOISE.maxChanges });
  for (let at = 0; at < changes; at++) {
    const change = faker.helpers.arrayElement(CHANGES);
    if (change === 'missing') {
      const field = faker.helpers.arrayElement(ALL_FIELDS);
      record[field] = null;
      noise.push(`${field}Missing`);
    } else if (change === 'typo') {
      const field = faker.helpers.arrayElement([...TEXT_FIELDS, 'birthDate', 'postcode']);
      if (record[field] === null) continue;
      record[field] = field === 'birthDate' || field === 'postcode' ? digitTypo(record[field]) : letterTypo(record[field]);
      noise.push(`${field}Typo`);
    } else {
      const swap = faker.helpers.arrayElement(SWAPS);
      if (swap === 'names') [record.firstName, record.lastName] = [record.lastName, record.firstName];
      else if (swap === 'streetCity') [record.street, record.city] = [record.city, record.street];
      else if (record.birthDate && Number(record.birthDate.slice(8)) <= 12) record.birthDate = `${record.birthDate.slice(0, 4)}-${record.birthDate.slice(8)}-${record.birthDate.slice(5, 7)}`;
      else continue;
      noise.push(`${swap}Swapped`);
    }
  }
  return { ...record, noise };
}

/** A letter inserted, dropped, replaced or two swapped, never the first letter. */
function letterTypo(value) {
  if (value.length < 3) return value;
  const at = faker.number.int({ min: 1, max: value.length - 2 });
  const letter = faker.string.alpha({ length: 1, casing: 'lower' });
  switch (faker.number.int({ min: 0, max: 3 })) {
    case 0:
      return value.slice(0, at) + letter + value.slice(at);
    case 1:
      return value.slice(0, at) + value.slice(at + 1);
    case 2:
      return value.slice(0, at) + letter + value.slice(at + 1);
    default:
      return value.slice(0, at) + value[at + 1] + value[at] + value.slice(at + 2);
  }
}

/** One digit of a date or postcode replaced, the result still a valid date. */
function digitTypo(value) {
  for (let attempt = 0; attempt < 10; attempt++) {
    const positions = [...value].map((char, at) => (/\d/.test(char) ? at : -1)).filter((at) => at >= 0);
    const at = faker.helpers.arrayElement(positions);
    const changed = value.slice(0, at) + faker.string.numeric(1) + value.slice(at + 1);
    if (changed === value) continue;
    if (value.includes('-') && Number.isNaN(Date.parse(`${changed}T00:00:00Z`))) continue;
    if (value.includes('-') && new Date(`${changed}T00:00:00Z`).toISOString().slice(0, 10) !== changed) continue;
    return changed;
  }
  return value;
}
