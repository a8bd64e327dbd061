import type { ClubProfile, ConsentMeaning, StatusGroup } from '../../src/simulator/clubs/index.js';
import type { Simulator } from '../../src/simulator/simulator.js';
import type { Item } from '../../src/simulator/store/cursor-resource.js';

/**
 * The club's headline figures worked out from the records as the simulator serves them, the
 * ticketing document's fields and the club profile's declared meanings (never from fanlake's
 * SQL or mapping files), and, where a figure counts fans, the simulator's truth of who is who.
 * Every fanlake figure of any club profile is compared with these.
 */

type Row = Record<string, any>;

export const cents = (amount: unknown): number => Math.round(Number(amount) * 100);

/** Everything the figures are computed from, as served. */
export interface ServedRecords {
  users: Row[];
  members: Row[];
  tickets: Row[];
  merchandise: Row[];
  permissions: Row[];
  profiles: Row[];
  people: Row[];
  consents: Row[];
  consentTexts: Row[];
}

export function servedRecords(sim: Simulator): ServedRecords {
  return {
    users: [...sim.ticketingRecords('users')],
    members: [...sim.ticketingRecords('members')],
    tickets: [...sim.ticketingRecords('tickets')],
    merchandise: [...sim.ticketingRecords('merchandise')],
    permissions: [...sim.ticketingRecords('user_permissions')],
    profiles: [...sim.engagementRecords('customer_profiles')],
    people: [...sim.engagementRecords('people')],
    consents: [...sim.engagementRecords('consents')],
    consentTexts: [...sim.engagementRecords('consent_texts')],
  };
}

/** `<system>:<record id>` → the true person behind the record. */
export function truePersons(sim: Simulator): Map<string, number> {
  return new Map([...sim.truth()].map((link) => [`${link.system}:${link.recordId}`, link.personId]));
}

// --- orders ---------------------------------------------------------------------------------

/** What became of an order: the club's meaning of its status (tickets `order_status_text`, merchandise `order_status_txt`). */
export function statusGroup(club: ClubProfile, record: Item): StatusGroup | undefined {
  const name = record.order_status_text ?? record.order_status_txt;
  return club.orderStatuses.find((status) => status.id === record.order_status && status.name === name)?.group;
}

export const isPaid = (club: ClubProfile, record: Item): boolean => statusGroup(club, record) === 'paid';

export type TicketKind = 'single' | 'season_ticket' | 'season_ticket_seat' | 'distributed';

/**
 * A ticket's kind from the documented fields alone: a season ticket is a ticket of order type
 * SeasonTicket (12) with a price, whatever match it is sold on; its seats are the zero-price
 * tickets carrying its `id_season_ticket`; a ticket without an order type was distributed.
 */
export function ticketKind(ticket: Item): TicketKind {
  if (ticket.order_type === null) return 'distributed';
  if (ticket.order_type === 12 && cents(ticket.ticket_price) > 0) return 'season_ticket';
  return ticket.id_season_ticket ? 'season_ticket_seat' : 'single';
}

/** `id_season_ticket` → the season of its seats. */
function seatSeasons(tickets: Item[]): Map<string, string> {
  const seasons = new Map<string, string>();
  for (const ticket of tickets) if (ticketKind(ticket) === 'season_ticket_seat') seasons.set(ticket.id_season_ticket as string, ticket.season as string);
  return seasons;
}

/** Each season's first kickoff, in season order. */
export function seasonStarts(tickets: Item[]): { season: string; startMs: number }[] {
  const starts = new Map<string, number>();
  for (const ticket of tickets) {
    const kickoff = Date.parse(`${ticket.match_date as string}T${ticket.match_time as string}Z`);
    starts.set(ticket.season as string, Math.min(kickoff, starts.get(ticket.season as string) ?? Infinity));
  }
  return [...starts].map(([season, startMs]) => ({ season, startMs })).sort((a, b) => a.startMs - b.startMs || a.season.localeCompare(b.season));
}

/** The season running when something was ordered (merchandise has no season of its own), or null before the first. */
export function seasonAt(starts: { season: string; startMs: number }[], at: string): string | null {
  const ms = Date.parse(at);
  return starts.filter((start) => start.startMs <= ms).at(-1)?.season ?? null;
}

export interface SoldTicket {
  ticket: Item;
  productLine: 'ticket' | 'season_ticket';
  /** A season ticket's is the season of its seats, else its own; any other ticket's its own. */
  season: string;
}

/** Every ticket with a price (never dropped from revenue), whatever its order's status. */
export function pricedTickets(tickets: Item[]): SoldTicket[] {
  const seats = seatSeasons(tickets);
  return tickets
    .filter((ticket) => ticket.order_type !== null && cents(ticket.ticket_price) > 0)
    .map((ticket) => {
      const seasonTicket = ticketKind(ticket) === 'season_ticket';
      const season = seasonTicket ? (seats.get(ticket.id_season_ticket as string) ?? (ticket.season as string)) : (ticket.season as string);
      return { ticket, productLine: seasonTicket ? 'season_ticket' : 'ticket', season };
    });
}

/** Revenue in øre of paid orders per `season|product_line`: priced tickets, and merchandise lines at the season running when ordered. */
export function revenueBySeasonAndLine(club: ClubProfile, tickets: Item[], merchandise: Item[]): Map<string, number> {
  const revenue = new Map<string, number>();
  const add = (key: string, amount: number) => revenue.set(key, (revenue.get(key) ?? 0) + amount);
  for (const sold of pricedTickets(tickets)) if (isPaid(club, sold.ticket)) add(`${sold.season}|${sold.productLine}`, cents(sold.ticket.ticket_price));
  const starts = seasonStarts(tickets);
  for (const line of merchandise) {
    if (isPaid(club, line)) add(`${seasonAt(starts, line.order_datetime as string) ?? ''}|merchandise`, cents(line.price_subtotal) + cents(line.vat));
  }
  return revenue;
}

/** Season tickets sold per season (any status), and how many are active (paid). */
export function seasonTicketsBySeason(club: ClubProfile, tickets: Item[]): Map<string, { sold: number; active: number }> {
  const seasons = new Map<string, { sold: number; active: number }>();
  for (const sold of pricedTickets(tickets)) {
    if (sold.productLine !== 'season_ticket') continue;
    const entry = seasons.get(sold.season) ?? seasons.set(sold.season, { sold: 0, active: 0 }).get(sold.season)!;
    entry.sold++;
    if (isPaid(club, sold.ticket)) entry.active++;
  }
  return seasons;
}

// --- spend ----------------------------------------------------------------------------------

export interface Purchase {
  atMs: number;
  kind: 'ticket' | 'merchandise';
  cents: number;
}

/** Every purchase of a true person: priced tickets of paid orders by buyer, paid merchandise lines by user. */
export function purchasesByPerson(club: ClubProfile, records: Pick<ServedRecords, 'tickets' | 'merchandise'>, persons: Map<string, number>): Map<number, Purchase[]> {
  const purchases = new Map<number, Purchase[]>();
  const add = (userId: unknown, purchase: Purchase) => {
    const person = persons.get(`ticketing_user:${userId}`);
    if (person === undefined) return;
    purchases.set(person, [...(purchases.get(person) ?? []), purchase]);
  };
  for (const ticket of records.tickets) {
    if (ticket.order_type !== null && isPaid(club, ticket)) add(ticket.user_aquired_id, { atMs: Date.parse(ticket.order_date as string), kind: 'ticket', cents: cents(ticket.ticket_price) });
  }
  for (const line of records.merchandise) {
    if (isPaid(club, line)) add(line.user_id, { atMs: Date.parse(line.order_datetime as string), kind: 'merchandise', cents: cents(line.price_subtotal) + cents(line.vat) });
  }
  return purchases;
}

/** Each person's total spend in øre. */
export function spendByPerson(club: ClubProfile, records: Pick<ServedRecords, 'tickets' | 'merchandise'>, persons: Map<string, number>): Map<number, number> {
  const spend = new Map<number, number>();
  for (const [person, purchases] of purchasesByPerson(club, records, persons)) spend.set(person, purchases.reduce((total, purchase) => total + purchase.cents, 0));
  return spend;
}

// --- consent --------------------------------------------------------------------------------

/** What a consent of either system truly means, or undefined for one the club never declared. */
export function consentMeaning(club: ClubProfile, system: 'ticketing' | 'engagement', id: unknown): ConsentMeaning | undefined {
  const consents: readonly (ConsentMeaning & { id: number })[] = system === 'ticketing' ? club.ticketingConsents : club.consentTexts;
  return consents.find((consent) => String(consent.id) === String(id));
}

/** The channels of a meaning as consent_coverage names them: a purpose without a channel is `none`. */
export const channelsOf = (meaning: ConsentMeaning): string[] => (meaning.channels.length === 0 ? ['none'] : [...meaning.channels]);

export interface ConsentDecision {
  granted: boolean;
  atMs: number;
  system: 'ticketing' | 'engagement';
}

/** One consent record's present state: a ticketing answer, an engagement consent given or revoked. */
interface ConsentEvent extends ConsentDecision {
  person: number;
  meaning: ConsentMeaning;
}

/**
 * The present state of every consent record whose person and meaning are known: agreeing to a
 * disabled text is no decision, revoking it still withdraws.
 */
function* consentEvents(club: ClubProfile, records: ServedRecords, persons: Map<string, number>): Generator<ConsentEvent> {
  for (const permission of records.permissions) {
    const person = persons.get(`ticketing_user:${permission.id_user}`);
    const meaning = consentMeaning(club, 'ticketing', permission.id_consent_basic);
    if (typeof permission.decision !== 'boolean' || person === undefined || !meaning) continue;
    yield { person, meaning, granted: permission.decision, atMs: Date.parse(permission.last_update as string), system: 'ticketing' };
  }
  const disabled = new Set(records.consentTexts.filter((text) => text.isEnabled === false).map((text) => String(text.id)));
  for (const consent of records.consents) {
    const text = String((consent.links as Row).consentText);
    const revoked = consent.isRevoked === true;
    const person = persons.get(`engagement_customer_profile:${consent.customerProfileId}`);
    const meaning = consentMeaning(club, 'engagement', text);
    if ((!revoked && disabled.has(text)) || person === undefined || !meaning) continue;
    const at = revoked ? ((consent.revokedDateTime as string | null) ?? (consent.createdDateTime as string)) : (consent.createdDateTime as string);
    yield { person, meaning, granted: !revoked, atMs: Date.parse(at), system: 'engagement' };
  }
}

/**
 * Each person's latest decision per purpose and channel (`person|purpose|channel`), as
 * docs/metrics.md defines it: the latest wins, a withdrawal wins a tie.
 */
export function consentDecisions(club: ClubProfile, records: ServedRecords, persons: Map<string, number>): Map<string, ConsentDecision> {
  const decisions = new Map<string, ConsentDecision>();
  for (const { person, meaning, ...decision } of consentEvents(club, records, persons)) {
    for (const channel of channelsOf(meaning)) {
      const key = `${person}|${meaning.purpose}|${channel}`;
      const current = decisions.get(key);
      if (!current || decision.atMs > current.atMs || (decision.atMs === current.atMs && !decision.granted)) decisions.set(key, decision);
    }
  }
  return decisions;
}

/**
 * `person|purpose|channel` for which one of the person's records grants the consent now: what
 * the person allowed somewhere, whatever identity resolution makes of their records. A fan
 * counted as consenting with none of these behind it was given a channel it never allowed.
 */
export function standingGrants(club: ClubProfile, records: ServedRecords, persons: Map<string, number>): Set<string> {
  const grants = new Set<string>();
  for (const { person, meaning, granted } of consentEvents(club, records, persons)) {
    if (granted) for (const channel of channelsOf(meaning)) grants.add(`${person}|${meaning.purpose}|${channel}`);
  }
  return grants;
}

export const normalizedEmail = (email: unknown): string | null => (typeof email === 'string' && email.trim() !== '' ? email.trim().toLowerCase() : null);

/** The phone rule of docs/metrics.md. */
export function phoneE164(phone: unknown): string | null {
  if (typeof phone !== 'string') return null;
  const candidate = phone.replace(/[^0-9+]/g, '').replace(/^00/, '+').replace(/^([1-9][0-9]{7})$/, '+47$1');
  return /^\+[1-9][0-9]{6,14}$/.test(candidate) ? candidate : null;
}

/** Each true person's e-mails and E.164 phones over all their records in both systems. */
export function contactsByPerson(records: ServedRecords, persons: Map<string, number>): Map<number, { emails: Set<string>; phones: Set<string> }> {
  const contacts = new Map<number, { emails: Set<string>; phones: Set<string> }>();
  const add = (person: number | undefined, email: unknown, phone: unknown) => {
    if (person === undefined) return;
    const entry = contacts.get(person) ?? { emails: new Set<string>(), phones: new Set<string>() };
    contacts.set(person, entry);
    const address = normalizedEmail(email);
    if (address) entry.emails.add(address);
    const number = phoneE164(phone);
    if (number) entry.phones.add(number);
  };
  for (const user of records.users) add(persons.get(`ticketing_user:${user.id}`), user.email, user.phone);
  for (const member of records.members) add(persons.get(`ticketing_member:${member.id}`), null, member.phone);
  for (const profile of records.profiles) add(persons.get(`engagement_customer_profile:${profile.id}`), profile.email, profile.phoneNumber);
  for (const person of records.people) {
    add(persons.get(`engagement_person:${person.id}`), person.emailAddress, person.network === 'sms' ? person.profileName : null);
  }
  return contacts;
}

/**
 * Persons with evidence of the club's app: a purchase made in it, whatever became of the
 * order (a ticket order or merchandise line on a channel the club calls its app).
 */
export function appUsers(club: ClubProfile, records: ServedRecords, persons: Map<string, number>): Set<number> {
  const ticketApp = new Set(club.ticketChannels.filter((channel) => channel.isApp).map((channel) => channel.name));
  const merchandiseApp = new Set(club.merchandiseChannels.filter((channel) => channel.isApp).map((channel) => channel.name));
  const users = [
    ...records.tickets.filter((ticket) => ticketApp.has(ticket.order_channel as string)).map((ticket) => ticket.user_aquired_id),
    ...records.merchandise.filter((line) => merchandiseApp.has(line.sale_channel_txt as string)).map((line) => line.user_id),
  ];
  return new Set(users.map((user) => persons.get(`ticketing_user:${user}`)).filter((person): person is number => person !== undefined));
}

export interface ConsentReach {
  total: number;
  withContact: number;
  consented: number;
  consentedTicketing: number;
  consentedEngagement: number;
  reachable: number;
  reachableTicketing: number;
  reachableEngagement: number;
  withdrawn: number;
}

/** marts.consent_coverage as the truth has it, per `purpose/channel` the club's consents name. */
export function consentReach(club: ClubProfile, records: ServedRecords, persons: Map<string, number>): Map<string, ConsentReach> {
  const decisions = consentDecisions(club, records, persons);
  const contacts = contactsByPerson(records, persons);
  const app = appUsers(club, records, persons);
  const everyone = new Set(persons.values());
  const hasContact = (person: number, channel: string) =>
    channel === 'none' ? true
    : channel === 'push' ? app.has(person)
    : channel === 'email' ? [...(contacts.get(person)?.emails ?? [])].some((email) => /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email))
    : (contacts.get(person)?.phones.size ?? 0) > 0;
  const meanings = [...club.ticketingConsents, ...club.consentTexts];
  const rows = new Set(meanings.flatMap((meaning) => channelsOf(meaning).map((channel) => `${meaning.purpose}/${channel}`)));
  const reach = new Map<string, ConsentReach>();
  for (const row of [...rows].sort()) {
    const [purpose, channel] = row.split('/') as [string, string];
    const counts: ConsentReach = { total: everyone.size, withContact: 0, consented: 0, consentedTicketing: 0, consentedEngagement: 0, reachable: 0, reachableTicketing: 0, reachableEngagement: 0, withdrawn: 0 };
    for (const person of everyone) {
      const contact = hasContact(person, channel);
      if (contact) counts.withContact++;
      const decision = decisions.get(`${person}|${purpose}|${channel}`);
      if (!decision) continue;
      if (!decision.granted) {
        counts.withdrawn++;
        continue;
      }
      counts.consented++;
      if (decision.system === 'ticketing') counts.consentedTicketing++;
      else counts.consentedEngagement++;
      if (!contact) continue;
      counts.reachable++;
      if (decision.system === 'ticketing') counts.reachableTicketing++;
      else counts.reachableEngagement++;
    }
    reach.set(row, counts);
  }
  return reach;
}
