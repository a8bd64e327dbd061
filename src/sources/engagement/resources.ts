import type { FieldDeclarations } from '../fields.js';
import type { PersonalFields } from '../personal-data.js';

/**
 * The list endpoints of the engagement API (seed document 000) and the members split off
 * their responses. Ids are `id` kind: the document types them as longs, samples send
 * strings; raw keeps them as text and staging casts them to BIGINT.
 */
const s = 'string';
const id = 'id';

export const CUSTOMER_PROFILE_FIELDS: FieldDeclarations = {
  id, href: s, type: s, tenantId: 'int', displayName: s, fullName: s, firstName: s, lastName: s, dateOfBirth: s,
  imageUrl: s, gender: s, location: s, languageCode: s, email: s, street: s, postalCode: s, city: s, county: s,
  country: s, timeZone: s, phoneNumber: s, customAuthenticationFields: 'text', links: 'json',
};

export const PERSON_FIELDS: FieldDeclarations = {
  id, type: s, externalId: s, network: s, customData: 'json', profileUrl: s, profileName: s, firstName: s,
  lastName: s, fullName: s, displayName: s, gender: s, dateOfBirth: s, isAdult: 'text', location: s,
  profileImageUrl: s, customerProfileId: id, emailAddress: s, tenantId: 'int', isDisabled: 'bool', systemId: id,
  language: s, country: s, customAuthenticationFields: 'text',
};

export const CONSENT_FIELDS: FieldDeclarations = {
  id, href: s, type: s, isRevoked: 'bool', revokedDateTime: s, customerProfileId: id, identityId: id,
  createdDateTime: s, createdById: id, links: 'json',
};

export const CONSENT_TEXT_FIELDS: FieldDeclarations = {
  id, type: s, text: s, isRequired: 'bool', isEnabled: 'bool', createdDateTime: s, createdById: id,
};

export const CONSENT_SOURCE_FIELDS: FieldDeclarations = {
  id: s, type: s, sourceId: s, sourceType: s, campaignAppId: id, fromDateTime: s, toDateTime: s, guid: s, title: s,
  shortUrl: s, url: s, subtype: s, visualType: s, tenantid: 'int',
};

export const CAMPAIGN_APP_FIELDS: FieldDeclarations = {
  id, href: s, type: s, guid: s, facebookAppId: id, fromDateTime: s, toDateTime: s, campaignAppTypeId: 'int',
  campaignAppTemplateId: id, smartLinkId: id, status: s, isValid: 'bool', ownerActorId: id, tenantId: 'int',
  subtype: s, visualType: s, isRemoved: 'bool', _type: s, name: s, createdDateTime: s, updatedDateTime: s,
  createdById: id, updatedById: id, version: 'int', isDisabled: 'bool', language: s, shareLinkUrl: s, links: 'json',
};

export const AUTHENTICATION_OPTION_FIELDS: FieldDeclarations = { id, type: s, _type: s, isEnabled: 'bool' };

export const PARTICIPANT_FIELDS: FieldDeclarations = {
  id, href: s, type: s, firstName: s, lastName: s, emailAddress: s, campaignAppId: id,
};

export const SUBSCRIPTION_FIELDS: FieldDeclarations = {
  id, href: s, type: s, url: s, isEnabled: 'bool', isValidated: 'bool', event: s, format: s, createdDateTime: s,
  failingSince: s,
};

export const LEADERBOARD_SEASON_FIELDS: FieldDeclarations = {
  id, name: s, startDate: s, endDate: s, privateLeaderboardsEnabled: 'bool', demographicFieldId: s,
  intervalGroupings: 'json',
};

/** The board a position belongs to is given by the request; the extractor adds it as the first three fields. */
export const TOP_POSITION_FIELDS: FieldDeclarations = {
  season_id: id, interval_id: id, demographic_value: s, participantName: s, customerProfileId: id,
  score: 'float', position: 'int', previousPosition: 'int',
};

/** Nodes of the context tree, flattened: the extractor adds parent_id and root_id. */
export const CONTEXT_NODE_FIELDS: FieldDeclarations = {
  id: s, type: s, tenantId: 'int', path: s, schema: 'text', customData: 'text', isRoot: 'bool', parent_id: s, root_id: s,
};

/** The loyalty summary of one customer profile; the extractor adds customerProfileId. */
export const LOYALTY_SUMMARY_FIELDS: FieldDeclarations = {
  customerProfileId: id, balance: 'int', rank: 'json', ranks: 'json', distinctions: 'json',
};

/**
 * An identity (GET identities/{id}): the ApiApp's view of a person, with the fields the
 * linked person lacks (`nickName`, `authenticationMethod`, the club's `extendedProperties`).
 */
export const IDENTITY_FIELDS: FieldDeclarations = {
  id, externalId: s, authenticationMethod: s, fullName: s, firstName: s, lastName: s, nickName: s, gender: s,
  dateOfBirth: s, profileImageUrl: s, isAdult: 'text', email: s, phone: s, street: s, postalCode: s, city: s,
  county: s, country: s, timeZone: s, extendedProperties: 'json', customAuthenticationFields: 'json', customerProfileId: id,
};

/**
 * The personal fields of the tables above that hold any. Custom authentication fields and
 * custom data are what a club asks its fans to fill in: treated as identifiers and free text.
 */
export const CUSTOMER_PROFILE_PERSONAL: PersonalFields = {
  displayName: 'name', fullName: 'name', firstName: 'name', lastName: 'name', dateOfBirth: 'birth_date',
  imageUrl: 'online_identifier', location: 'address', email: 'email', street: 'address', postalCode: 'address',
  city: 'address', phoneNumber: 'phone', customAuthenticationFields: 'online_identifier',
};

export const PERSON_PERSONAL: PersonalFields = {
  customData: 'free_text', profileUrl: 'online_identifier', profileName: 'online_identifier', firstName: 'name',
  lastName: 'name', fullName: 'name', displayName: 'name', dateOfBirth: 'birth_date', location: 'address',
  profileImageUrl: 'online_identifier', emailAddress: 'email', customAuthenticationFields: 'online_identifier',
};

export const PARTICIPANT_PERSONAL: PersonalFields = { firstName: 'name', lastName: 'name', emailAddress: 'email' };

export const TOP_POSITION_PERSONAL: PersonalFields = { participantName: 'name' };

export const IDENTITY_PERSONAL: PersonalFields = {
  fullName: 'name', firstName: 'name', lastName: 'name', nickName: 'online_identifier', dateOfBirth: 'birth_date',
  profileImageUrl: 'online_identifier', email: 'email', phone: 'phone', street: 'address', postalCode: 'address',
  city: 'address', extendedProperties: 'free_text', customAuthenticationFields: 'online_identifier',
};
