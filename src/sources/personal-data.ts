/**
 * The kinds of personal data fanlake copies about a fan. Declared per column of the raw
 * tables (`TableSpec.personal`) and of the models (`-- personal:` in a model's header), so
 * that one list says where a person's data lives: what an access request prints and what an
 * erasure must reach.
 */
export const PERSONAL_KINDS = {
  name: 'a first, last, full or display name',
  email: 'an e-mail address',
  phone: 'a phone number',
  birth_date: 'a birth date',
  address: 'a street address, postal code, city or free-form location',
  online_identifier: 'a username, nickname, profile link or picture, or a login field',
  free_text: 'free text or custom data that may describe the person',
} as const;

export type PersonalKind = keyof typeof PERSONAL_KINDS;

/** Column name → the kind of personal data it holds; columns not named hold none. */
export type PersonalFields = Readonly<Record<string, PersonalKind>>;

/** One column that holds personal data. */
export interface PersonalColumn {
  /** Schema-qualified relation, lowercased: `raw.ticketing_users`, `marts.dim_fan`. */
  readonly relation: string;
  readonly column: string;
  readonly kind: PersonalKind;
}

export function isPersonalKind(value: string): value is PersonalKind {
  return Object.hasOwn(PERSONAL_KINDS, value);
}

/**
 * The identity systems a fan's records belong to, as `marts.fan_identity_links.system` names
 * them; `<system>:<record id>` is a record key (`ticketing_user:10001`).
 */
export const PERSON_SYSTEMS = ['ticketing_user', 'ticketing_member', 'engagement_customer_profile', 'engagement_person'] as const;
export type PersonSystem = (typeof PERSON_SYSTEMS)[number];

/**
 * A field that says whose a record is: the record id of one of the identity systems, or, in a
 * table that carries no such id, the person's e-mail address (compared trimmed and lowercased).
 */
export interface PersonKey {
  readonly field: string;
  readonly refersTo: PersonSystem | 'email';
}
