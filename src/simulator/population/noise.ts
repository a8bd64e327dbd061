import { Rng } from '../random.js';
import { FEMALE_FIRST, FIRST_NAME_SHORT_FORMS, MAIL_DOMAINS, MALE_FIRST, asciiName } from './names.js';
import type { Person } from './persons.js';

/** The record systems a person is written into; each spells a person its own way. */
export type NoiseSystem = 'ticketing_user' | 'ticketing_member' | 'engagement_customer_profile';

/**
 * Real-world noise, as a share of a system's persons (documented in docs/decisions.md,
 * "Simulator noise"). Each kind is drawn on its own, so a record can carry several.
 */
export const NOISE_RATES = {
  /** Å, Ø, é... written without their marks (Ø → O, Å → A, Æ → AE); of names that have one. */
  diacriticsDropped: 0.12,
  /** ø, å, æ written oe, aa, ae; of names that have one (and kept them). */
  transliterated: 0.08,
  /** A second given name in this system only ("Kari Marie"). */
  middleName: 0.05,
  /** One letter of the last name substituted, dropped or swapped with its neighbour. */
  typo: 0.02,
  /** A doubled consonant written single or a single one doubled (Pettersen / Petersen). */
  doubledConsonant: 0.03,
  /** The whole name in capitals. */
  upperCase: 0.04,
  /** The whole name in lower case. */
  lowerCase: 0.03,
  /** First and last name in each other's fields. */
  swapped: 0.01,
  /** A personal e-mail address changed since the person signed up here. */
  emailChanged: 0.05,
  /** A phone number changed since the person signed up here. */
  phoneChanged: 0.04,
  /** The first name as its short form or nickname in this system (Kris for Kristian); of names that have one (FIRST_NAME_SHORT_FORMS). */
  shortForm: 0.15,
  /** Only the first name's initial in this system (K for Kari). */
  firstInitial: 0.005,
} as const;

/** Household partners (SHARES.households) who also share the head's phone, with noise on. */
export const HOUSEHOLD_SHARED_PHONE = 0.6;

/** Household partners who are the head's twin, with noise on: one surname, address, mailbox and birth date, two first names. */
export const HOUSEHOLD_TWINS = 0.25;

export type NoiseKind = keyof typeof NOISE_RATES;

/** A person as one system wrote them, and which noise made it differ. */
export interface WrittenPerson {
  readonly person: Person;
  readonly noise: readonly NoiseKind[];
}

const TRANSLITERATIONS: Record<string, string> = { ø: 'oe', Ø: 'Oe', å: 'aa', Å: 'Aa', æ: 'ae', Æ: 'Ae' };
const VOWELS = 'aeiouyæøå';

/**
 * How `system` wrote `person`: a pure function of (seed, system, person), so a record's
 * generator and the ground truth agree without storing anything. Its own Rng stream: the
 * record generators' draws, and so the data without noise, stay as they were.
 */
export function writtenPerson(seed: number, system: NoiseSystem, person: Person): WrittenPerson {
  const rng = Rng.for(seed, `noise-${system}`, person.index);
  const noise: NoiseKind[] = [];
  const hit = (kind: NoiseKind) => {
    const drawn = rng.chance(NOISE_RATES[kind]);
    if (drawn) noise.push(kind);
    return drawn;
  };
  let firstName = person.firstName;
  let lastName = person.lastName;
  const marked = /[^A-Za-z -]/.test(firstName + lastName);
  if (hit('diacriticsDropped') && marked) {
    firstName = dropMarks(firstName);
    lastName = dropMarks(lastName);
  } else if (hit('transliterated') && marked) {
    firstName = transliterate(firstName);
    lastName = transliterate(lastName);
  }
  if (hit('middleName')) {
    const names = person.gender === 'male' ? MALE_FIRST : FEMALE_FIRST;
    firstName = `${firstName} ${names[(names.indexOf(person.firstName as never) + rng.int(1, names.length - 1)) % names.length]}`;
  }
  if (hit('typo')) lastName = typo(lastName, rng);
  if (hit('doubledConsonant')) lastName = toggleDoubled(lastName, rng);
  if (hit('upperCase')) [firstName, lastName] = [firstName.toUpperCase(), lastName.toUpperCase()];
  else if (hit('lowerCase')) [firstName, lastName] = [firstName.toLowerCase(), lastName.toLowerCase()];
  if (hit('swapped')) [firstName, lastName] = [lastName, firstName];
  let { email, phone } = person;
  if (hit('emailChanged')) email = `${asciiName(person.firstName)}.${asciiName(person.lastName)}.${rng.int(100, 999)}@${rng.pick(MAIL_DOMAINS)}`;
  if (hit('phoneChanged')) phone = { ...phone, national: phone.national.slice(0, 1) + rng.digits(phone.national.length - 1) };
  // drawn last, so the kinds above are drawn as before they existed
  const forms = FIRST_NAME_SHORT_FORMS[person.firstName];
  let given: string | undefined;
  if (hit('shortForm') && forms) given = rng.pick(forms);
  else if (hit('firstInitial')) given = person.firstName.slice(0, 1);
  if (given !== undefined) {
    // in the given name's field (the last name's when swapped), in the case the record is written in
    if (noise.includes('upperCase')) given = given.toUpperCase();
    else if (noise.includes('lowerCase')) given = given.toLowerCase();
    if (noise.includes('swapped')) lastName = given;
    else firstName = given;
  }
  // kinds that had nothing to act on (no marks to drop) changed nothing: not recorded
  const recorded = (marked ? noise : noise.filter((kind) => kind !== 'diacriticsDropped' && kind !== 'transliterated')).filter((kind) => kind !== 'shortForm' || forms);
  return { person: { ...person, firstName, lastName, email, phone }, noise: recorded };
}

function dropMarks(name: string): string {
  return name.replace(/Æ/g, 'AE').replace(/æ/g, 'ae').replace(/Ø/g, 'O').replace(/ø/g, 'o').normalize('NFD').replace(/[\u0300-\u036f]/g, '');
}

function transliterate(name: string): string {
  return name.replace(/[øØåÅæÆ]/g, (letter) => TRANSLITERATIONS[letter]!);
}

/** One letter at position 1 or later substituted, dropped or swapped with the next. */
function typo(name: string, rng: Rng): string {
  if (name.length < 4) return name;
  const at = rng.int(1, name.length - 2);
  const kind = rng.int(0, 2);
  if (kind === 0) return name.slice(0, at) + String.fromCharCode(97 + rng.int(0, 25)) + name.slice(at + 1);
  if (kind === 1) return name.slice(0, at) + name.slice(at + 1);
  return name.slice(0, at) + name[at + 1] + name[at] + name.slice(at + 2);
}

/** Pettersen → Petersen, Hansen → Hanssen: the first doubled consonant made single, else a single one doubled. */
function toggleDoubled(name: string, rng: Rng): string {
  const doubled = /([^aeiouyæøåAEIOUYÆØÅ])\1/.exec(name);
  if (doubled) return name.slice(0, doubled.index) + name.slice(doubled.index + 1);
  const singles: number[] = [];
  for (let i = 1; i < name.length - 1; i++) {
    if (!VOWELS.includes(name[i]!.toLowerCase()) && /[a-z]/.test(name[i]!) && VOWELS.includes(name[i - 1]!.toLowerCase())) singles.push(i);
  }
  if (singles.length === 0) return name;
  const at = rng.pick(singles);
  return name.slice(0, at + 1) + name.slice(at);
}
