import type { IdentitySelection } from '../../config/settings.js';
import { type ChildRequest, type Json, asArray } from '../endpoint-declaration.js';

/** What the engagement declarations' hooks read of the configuration. */
export interface EngagementSettings {
  readonly contextRoots: readonly string[];
  readonly demographicValues: readonly string[];
  readonly loyalty: boolean;
  readonly identities: IdentitySelection;
}

/**
 * Whether a linked person is an identity an ApiApp created: its `network` is `apiApp`
 * (compared ignoring case). The document does not say which persons are identities, and
 * `systemId` is not used because its meaning is not documented (see docs/decisions.md).
 * `all` asks for every person and lets a 404 say no.
 */
export function isApiAppIdentity(person: Json, settings: EngagementSettings): boolean {
  if (settings.identities === 'all') return true;
  return typeof person.network === 'string' && person.network.toLowerCase() === 'apiapp';
}

/** The consents of a profile are read through its first linked person (the path takes an identity id). */
export function firstPersonOf(profile: Json | undefined): ChildRequest[] {
  const people = asArray((profile?.links as Json | undefined)?.people);
  if (people.length === 0) return [];
  return [{ params: { personId: String(people[0]), profileId: String(profile!.id) }, label: 'identity {personId} (profile {profileId})' }];
}

/** A profile's loyalty summary is looked up by its e-mail, else by its phone in RFC 3966 form. */
export function loyaltyQueryOf(profile: Json | undefined): ChildRequest[] {
  const email = text(profile?.email);
  const phone = rfc3966(text(profile?.phoneNumber));
  if (!email && !phone) return [];
  const profileId = String(profile!.id);
  const query = email ? { type: 'email', value: email.trim() } : { type: 'phone', value: phone! };
  return [{ query, inject: { customerProfileId: profileId }, label: 'profile {customerProfileId}' }];
}

/**
 * The boards of a season: its general board and one per interval, each also per
 * configured demographic value when the season has a demographic field. The board is
 * given by the request, so its ids become columns of every position.
 */
export function boardsOf(season: Json | undefined, settings: EngagementSettings): ChildRequest[] {
  if (!season) return [];
  const seasonId = String(season.id);
  const intervals = asArray(season.intervalGroupings).flatMap((g) => asArray((g as Json).intervals)).map((i) => String((i as Json).id));
  const demographic = season.demographicFieldId ? settings.demographicValues : [];
  return [undefined, ...intervals].flatMap((intervalId) =>
    [undefined, ...demographic].map((value) => ({
      query: { leaderboardseasonid: seasonId, intervalId, demographicValue: value, positionCount: 100 },
      inject: { season_id: seasonId, interval_id: intervalId ?? null, demographic_value: value ?? null },
      label: 'season {season_id} interval {interval_id} demographic {demographic_value}',
    })),
  );
}

/** The context trees to read: the API cannot list roots, so they are configured. */
export function contextRootsOf(_parent: Json | undefined, settings: EngagementSettings): ChildRequest[] {
  return settings.contextRoots.map((root) => ({ params: { root }, label: 'context {root}' }));
}

/** One row per node of a context tree, with its parent's and root's ids. */
export function flattenTree(body: unknown, child: ChildRequest): Json[] {
  if (!body || typeof body !== 'object') return [];
  return flatten(body as Json, child.params!.root!, null);
}

function flatten(node: Json, rootId: string, parentId: string | null): Json[] {
  const { children, parent: _parent, ...fields } = node;
  const id = String(node.id);
  return [{ ...fields, parent_id: parentId, root_id: rootId }, ...asArray(children).flatMap((child) => flatten(child as Json, rootId, id))];
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** A phone in RFC 3966 form when it is already international; other forms are not guessed here. */
export function rfc3966(phone: string | undefined): string | undefined {
  if (!phone) return undefined;
  const digits = phone.replace(/^tel:/, '').replace(/[\s\-.()]/g, '');
  const international = digits.startsWith('+') ? digits.slice(1) : digits.startsWith('00') ? digits.slice(2) : undefined;
  return international && /^\d{6,15}$/.test(international) ? `tel:+${international}` : undefined;
}
