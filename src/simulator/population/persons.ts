import { Rng } from '../random.js';
import { HOUSEHOLD_SHARED_PHONE, HOUSEHOLD_TWINS } from './noise.js';
import { CITIES, FEMALE_FIRST, LAST, MAIL_DOMAINS, MALE_FIRST, STREETS, WORK_DOMAINS, asciiName } from './names.js';

/** A real human behind records in both systems: the ground truth of identity resolution. */
export interface Person {
  readonly index: number;
  readonly gender: 'female' | 'male';
  readonly firstName: string;
  readonly lastName: string;
  readonly birthday: string;
  readonly street: string;
  readonly city: string;
  readonly zip: string;
  readonly county: string;
  readonly phone: Phone;
  /** Personal address, lowercase; shared with the household head in a shared-mailbox household. */
  readonly email: string;
  /** An older personal address, used for second accounts. */
  readonly oldEmail: string;
  /** Where some people sign up to the engagement platform instead. */
  readonly workEmail: string;
}

export interface Phone {
  readonly countryCode: string;
  /** National significant number, digits only. */
  readonly national: string;
}

const COUNTRIES = [
  [{ code: '47', country: 'NO', length: 8, lead: ['4', '9'] }, 85],
  [{ code: '46', country: 'SE', length: 9, lead: ['70', '72', '73'] }, 6],
  [{ code: '45', country: 'DK', length: 8, lead: ['2', '3', '4'] }, 4],
  [{ code: '44', country: 'GB', length: 10, lead: ['7'] }, 3],
  [{ code: '49', country: 'DE', length: 11, lead: ['151', '160', '170'] }, 2],
] as const;

/**
 * Person attributes are derived from (seed, index) on demand; only the household links
 * are stored. A person whose `householdHead` is another person shares that person's
 * surname, address and e-mail: the precision trap of shared family mailboxes.
 */
export class Persons {
  constructor(
    private readonly seed: number,
    readonly count: number,
    private readonly householdHead: Int32Array,
    /** With noise (see noise.ts): last names as skewed as real ones, and partners often sharing a phone. */
    private readonly noise = false,
  ) {}

  get(index: number): Person {
    const rng = Rng.for(this.seed, 'person', index);
    const gender = rng.chance(0.52) ? 'male' : 'female';
    const names = gender === 'male' ? MALE_FIRST : FEMALE_FIRST;
    const head = this.householdHead[index]!;
    const shared = head >= 0 && head !== index ? this.get(head) : undefined;
    let firstName: string = rng.pick(names);
    // Partners sharing a mailbox never share a first name: names tell them apart.
    if (firstName === shared?.firstName) firstName = names[(names.indexOf(firstName as never) + 1) % names.length]!;
    // rng.pick stays drawn as before when noise is off, so that data is unchanged
    const lastName = shared?.lastName ?? (this.noise ? (rng.pick(LAST), zipfLastName(this.seed, index)) : rng.pick(LAST));
    const year = rng.int(1948, 2010);
    const ownBirthday = `${year}-${pad(rng.int(1, 12))}-${pad(rng.int(1, 28))}`;
    // a twin of the head (its own stream, so the other attributes stay as they were)
    const birthday = this.noise && shared && Rng.for(this.seed, 'noise-twins', index).chance(HOUSEHOLD_TWINS) ? shared.birthday : ownBirthday;
    const [city, zip, county] = shared ? [shared.city, shared.zip, shared.county] : rng.pick(CITIES);
    const street = shared?.street ?? `${rng.pick(STREETS)} ${rng.int(1, 120)}`;
    const country = rng.weighted(COUNTRIES);
    const lead = rng.pick(country.lead);
    const ownPhone = { countryCode: country.code, national: lead + rng.digits(country.length - lead.length) };
    const phone = this.noise && shared && Rng.for(this.seed, 'noise-household', index).chance(HOUSEHOLD_SHARED_PHONE) ? shared.phone : ownPhone;
    const first = asciiName(firstName);
    const last = asciiName(lastName);
    const style = rng.int(0, 4);
    const local = [`${first}.${last}`, `${first}${last}`, `${first[0]}${last}`, `${first}_${last}`, `${first}.${last}${rng.int(1, 99)}`][style]!;
    // A mailbox is one person's (or one household's): the person's number keeps two namesakes
    // from being handed one address, as a provider would. (Without noise it once could, and
    // identity resolution rightly took one address and one full name for one person.)
    const unique = `.${index}`;
    const email = shared?.email ?? `${local}${rng.chance(0.3) ? rng.int(60, 99) : ''}${unique}@${rng.pick(MAIL_DOMAINS)}`;
    const oldEmail = `${first}${last}${rng.int(1, 999)}${unique}@${rng.pick(MAIL_DOMAINS)}`;
    const workEmail = `${first}.${last}${unique}@${rng.pick(WORK_DOMAINS)}`;
    return { index, gender, firstName, lastName, birthday, street, city, zip, county, phone, email, oldEmail, workEmail };
  }
}

const ZIPF_LAST = LAST.map((name, rank) => [name, 1 / (rank + 1)] as const);

/**
 * A last name drawn as real ones are spread: the list is in Norway's frequency order and the
 * n-th name is 1/n as common as the first (Zipf), so namesakes pile up at scale 10. Its own
 * stream, so the other attributes stay as without noise.
 */
function zipfLastName(seed: number, index: number): string {
  return Rng.for(seed, 'noise-last-name', index).weighted(ZIPF_LAST);
}

/** The forms phone numbers are written in across both systems. */
export const PHONE_STYLES = ['e164', 'national', 'intl00', 'grouped', 'groupedNational', 'tel', 'dashed'] as const;
export type PhoneStyle = (typeof PHONE_STYLES)[number];

export function formatPhone(phone: Phone, style: PhoneStyle): string {
  const { countryCode: cc, national: n } = phone;
  switch (style) {
    case 'e164':
      return `+${cc}${n}`;
    case 'national':
      return cc === '47' || cc === '45' ? n : `0${n}`;
    case 'intl00':
      return `00${cc}${n}`;
    case 'grouped':
      return `+${cc} ${n.slice(0, 3)} ${n.slice(3, 5)} ${n.slice(5)}`;
    case 'groupedNational':
      return n.match(/.{1,2}/g)!.join(' ');
    case 'tel':
      return `tel:+${cc}-${n.slice(0, 3)}-${n.slice(3, 5)}-${n.slice(5)}`;
    case 'dashed':
      return `+${cc}-${n}`;
  }
}

/** The RFC 3966 form the engagement API documents for phones. */
export function rfc3966(phone: Phone): string {
  return `tel:+${phone.countryCode}-${phone.national}`;
}

/** An e-mail as a person typed it into a form: sometimes capitalised or padded. */
export function typedEmail(email: string, rng: Rng): string {
  const roll = rng.next();
  if (roll < 0.7) return email;
  if (roll < 0.85) return email.charAt(0).toUpperCase() + email.slice(1).replace(/@(.)/, (_, c: string) => '@' + c.toUpperCase());
  if (roll < 0.95) return rng.chance(0.5) ? ` ${email}` : `${email} `;
  return email.toUpperCase();
}

export function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}
