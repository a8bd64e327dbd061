import { type ClubProfile, type OrderStatus, SEASON_TICKET_ORDER_TYPE } from '../../clubs/club-profile.js';
import { CursorResource, type Item } from '../../store/cursor-resource.js';
import { Rng } from '../../random.js';
import type { Population } from '../population.js';
import { SCALE_1 } from '../population.js';
import { DAY_MS, HOUR_MS, MINUTE_MS, iso, isoDate } from '../time.js';
import { EVENTS_PER_SEASON, type Match, buildMatches } from './matches.js';
import type { Users } from './users.js';
import { segmentOf } from '../../store/sorted.js';

export const TICKET_STATUS = { 1: 'Free', 2: 'Reserved', 3: 'Paid', 4: 'Redeemed', 5: 'Unredeemed', 6: 'RedeemCodeChecked', 7: 'ForSell', 8: 'Used', 9: 'ReadyForPickUp' } as const;
export const ORDER_TYPE = { 5: 'Kiosk', 6: 'Ticket', 7: 'Auction', 8: 'Merchandise', 9: 'Pledge', 10: 'Competition', 11: 'Deposit', 12: 'SeasonTicket', 13: 'Lottery', 14: 'PlayerVotes', 15: 'Subscription', 16: 'GiftCard' } as const;
const TICKET_TYPES = { 1: 'Adult', 2: 'Child', 3: 'Senior', 4: 'Student' } as const;
const PRICE_FACTOR = { 1: 1, 2: 0.5, 3: 0.7, 4: 0.8 } as const;
const CATEGORIES = { 1: 'Long side', 2: 'Short side', 3: 'Family stand', 4: 'North stand' } as const;
const CATEGORY_PRICE = { 1: 420, 2: 320, 3: 260, 4: 220 } as const;
/** Share of the ticket budget sold ticket by ticket; season-ticket seats on real matches fill the rest. */
const SINGLE_TICKET_SHARE = 0.7;
/** Share of a season's season-ticket orders that renew one of the previous season's. */
const RENEWAL_SHARE = 0.7;
/** Demand for season tickets beside a match's single-ticket demand (its popularity). */
const SEASON_TICKET_DEMAND = 0.5;

interface OrderFacts {
  readonly first: number;
  readonly size: number;
  readonly buyer: number;
  readonly orderDateMs: number;
  /** null for distributed (free) tickets. */
  readonly orderType: number | null;
  readonly orderStatus: OrderStatus;
  readonly channel: string;
}

/** Tickets (`/api/tickets`): one row per sold or distributed ticket, grouped in orders. */
export class Tickets extends CursorResource {
  readonly matches: Match[];
  private readonly source: TicketSource;

  constructor(population: Population, users: Users, nowMs: number, club: ClubProfile) {
    const seed = population.seed;
    const total = Math.max(100, Math.round(SCALE_1.tickets * population.scale));
    const matches = buildMatches(seed, nowMs, club);
    const vocabulary = orderVocabulary(club);
    const layout = layOutTickets({ population, users, nowMs, matches, club, ...vocabulary }, ticketsPerMatch(matches, Math.round(total * SINGLE_TICKET_SHARE), nowMs));
    const count = layout.orderStart.length;
    const lastUpdate = new Float64Array(count);
    // Field initialisers run after super(), so compute facts through a throwaway view.
    for (let i = 0; i < count; i++) lastUpdate[i] = ticketLastUpdate(layout, i);
    super('tickets', lastUpdate);
    this.matches = matches;
    this.source = layout;
  }

  /**
   * Ground truth of season tickets: every completed season-ticket sale ticket (by index) of
   * each season, in the order its seats appear on that season's league matches.
   */
  seasonTicketSales(season: string): readonly number[] {
    const s = this.matches.findIndex((match) => match.season === season && match.sellsSeasonTickets);
    return s < 0 ? [] : [...this.source.seasonSeats[seasonOf(this.matches[s]!)]!];
  }

  keyOf(item: Item): string {
    return String(item.id);
  }

  protected newKey(index: number, copied: Item): Item {
    // A season ticket sold again is another holder's: its id names one holder's season ticket.
    const seasonTicket = typeof copied.id_season_ticket === 'string' ? { id_season_ticket: copied.id_season_ticket.replace(/-\d+$/, `-${index + 1}`) } : {};
    return { id: ticketId(index), ...seasonTicket };
  }

  protected generate(index: number, version: number, lastUpdate: string): Item {
    const match = this.matches[matchOf(this.source.matchStart, index)]!;
    // A season-ticket seat repeats its season ticket's order, holder, category and seat.
    const sale = seasonTicketOf(this.source, index);
    const origin = sale < 0 ? index : sale;
    const order = orderFacts(this.source, origin);
    const rng = Rng.for(this.source.population.seed, 'ticket-details', index);
    const status = ticketStatus(this.source, index, version);
    const { category, type } = ticketKind(this.source, origin);
    const price = sale >= 0 ? 0 : ticketPrice(this.source, index);
    const orderPrice = Array.from({ length: order.size }, (_, k) => ticketPrice(this.source, order.first + k)).reduce((a, b) => a + b, 0);
    const subtotal = Math.round((price / 1.12) * 100) / 100;
    const holderIndex = holderOf(this.source, origin, order);
    const buyer = this.source.users.record(order.buyer);
    const holder = holderIndex === order.buyer ? buyer : this.source.users.record(holderIndex);
    const seat = Rng.for(this.source.population.seed, 'ticket-seat', origin);
    const released = status === 7;
    const redeemed = status === 4 || status === 6 || (status === 8 && !rng.chance(0.05));
    const saleMatch = this.matches[matchOf(this.source.matchStart, origin)]!;
    return {
      id: ticketId(index),
      last_update: lastUpdate,
      order_date: iso(order.orderDateMs),
      id_transaction: 3_000_000 + order.first,
      id_sale_order: `SO-${order.first + 1}`,
      id_event: match.idEvent,
      match_date: isoDate(match.kickoffMs),
      match_time: iso(match.kickoffMs).slice(11, 19),
      league_name: match.league,
      match_sales_start: iso(match.salesStartMs),
      match_sales_close: iso(match.salesCloseMs),
      match_finished: match.kickoffMs + 2 * HOUR_MS < this.source.nowMs,
      match_team_home_id: match.home[0],
      match_team_away_id: match.away[0],
      match_team_home_name: match.home[1],
      match_team_away_name: match.away[1],
      name: this.source.club.venue,
      season: match.season,
      external_id: rng.chance(0.1) ? `EXT-${rng.digits(8)}` : null,
      order_type: order.orderType,
      order_type_txt: order.orderType === null ? null : ORDER_TYPE[order.orderType as keyof typeof ORDER_TYPE],
      order_channel: order.channel,
      order_status: order.orderStatus.id,
      order_status_text: order.orderStatus.name,
      order_price: orderPrice.toFixed(2),
      ticket_vat: (price - subtotal).toFixed(2),
      ticket_subtotal: subtotal.toFixed(2),
      ticket_price: price.toFixed(2),
      ticket_type: type,
      ticket_type_txt: TICKET_TYPES[type],
      id_ticket_status: status,
      ticket_status_txt: TICKET_STATUS[status],
      ticket_redeemed: redeemed,
      ticket_price_category: category,
      ticket_price_description: CATEGORIES[category],
      ticket_was_printed: version % 2,
      ticket_section: String.fromCharCode(65 + seat.int(0, 7)),
      ticket_row: String(seat.int(1, 30)),
      ticket_seat: String(seat.int(1, 40)),
      user_aquired_id: buyer.id,
      user_aquired_date_created: buyer.user_created,
      user_aquired_email: buyer.email,
      user_aquired_phone: buyer.phone,
      user_aquired_username: buyer.username,
      u_aquired_address: buyer.address,
      u_aquired_city: buyer.city,
      u_aquired_country: buyer.country,
      u_aquired_zip_code: buyer.zip_code,
      user_held_id: holder.id,
      user_held_date_created: holder.user_created,
      user_held_email: holder.email,
      user_held_phone: holder.phone,
      user_held_username: holder.username,
      user_held_address: holder.address,
      user_held_city: holder.city,
      user_held_country: holder.country,
      user_held_zip_code: holder.zip_code,
      ticket_date_released: released ? iso(Math.min(this.source.nowMs, order.orderDateMs + 3 * DAY_MS)) : null,
      ticket_released: String(released),
      distribution: order.orderType === null ? rng.pick(['Sponsor allocation', 'Complimentary', 'Players and staff']) : null,
      id_season_ticket: order.orderType === SEASON_TICKET_ORDER_TYPE ? `ST-${saleMatch.season}-${origin + 1}` : null,
      just_seasonticket_sales: match.virtual,
      event_type: 1,
    };
  }
}

export function ticketId(index: number): string {
  return `T${String(index + 1).padStart(8, '0')}`;
}

/** The club's order statuses and single-ticket order types as weighted draws. */
interface OrderVocabulary {
  readonly statuses: readonly (readonly [OrderStatus, number])[];
  readonly singleTypes: readonly (readonly [number, number])[];
  readonly channels: readonly string[];
}

function orderVocabulary(club: ClubProfile): OrderVocabulary {
  return {
    statuses: club.orderStatuses.map((status) => [status, status.ticketWeight] as const),
    singleTypes: club.ticketOrderTypes.filter((type) => type.singleWeight > 0).map((type) => [type.id, type.singleWeight] as const),
    channels: club.ticketChannels.map((channel) => channel.name),
  };
}

/** What generates tickets; the typed arrays are the whole layout, records come from (seed, index). */
interface TicketSource extends OrderVocabulary {
  readonly population: Population;
  readonly users: Users;
  readonly nowMs: number;
  readonly club: ClubProfile;
  readonly matches: Match[];
  /** First ticket index of each match (one more entry for the end). */
  readonly matchStart: ArrayLike<number>;
  /** End of each match's season-ticket seats, which open its segment. */
  readonly seatEnd: ArrayLike<number>;
  /** End of the season-ticket sale tickets that follow the seats on a match selling them; single-ticket orders follow. */
  readonly saleEnd: ArrayLike<number>;
  /** First ticket index of each ticket's order; a seat is its own. */
  readonly orderStart: ArrayLike<number>;
  /** Per season: the sale tickets of completed season-ticket orders, one seat each on every covered match. */
  readonly seasonSeats: readonly Uint32Array[];
  /** Per season: the buyers (user index) of completed season-ticket orders, whom the next season renews. */
  readonly seasonBuyers: readonly Int32Array[];
}

/** Season of a match: index into the per-season arrays. */
function seasonOf(match: Match): number {
  return Math.floor(match.index / EVENTS_PER_SEASON);
}

/**
 * A season ticket gives a seat at every league match of its season (cup matches are sold
 * apart); on the match it is sold on, the sale ticket itself is the seat.
 */
function hasSeats(match: Match): boolean {
  return !match.virtual && !match.sellsSeasonTickets && match.league === 'Eliteserien';
}

/**
 * Places every ticket: per match its season-ticket seats first, then, on the match that sells
 * them, season-ticket orders, then single-ticket orders; orders hold 1-4 tickets. A season's
 * sale comes before its other matches, so its completed orders are known when their seats are
 * laid out.
 */
function layOutTickets(
  base: Pick<TicketSource, 'population' | 'users' | 'nowMs' | 'club' | 'matches' | keyof OrderVocabulary>,
  counts: { seasonTickets: Uint32Array; singles: Uint32Array },
): TicketSource {
  const { matches } = base;
  const seasons = Math.ceil((matches.at(-1)!.index + 1) / EVENTS_PER_SEASON);
  // Not yet placed matches start "at infinity", so segment lookups work while building.
  const matchStart = new Float64Array(matches.length + 1).fill(Number.MAX_SAFE_INTEGER);
  const seatEnd = new Float64Array(matches.length);
  const saleEnd = new Float64Array(matches.length);
  const orderStart: number[] = [];
  const seasonSeats: Uint32Array[] = Array.from({ length: seasons }, () => new Uint32Array(0));
  const seasonBuyers: Int32Array[] = Array.from({ length: seasons }, () => new Int32Array(0));
  const building: TicketSource = { ...base, matchStart, seatEnd, saleEnd, orderStart, seasonSeats, seasonBuyers };
  const rng = Rng.for(base.population.seed, 'ticket-orders');
  const placeOrders = (count: number) => {
    const end = orderStart.length + count;
    while (orderStart.length < end) {
      const first = orderStart.length;
      const size = Math.min(end - first, rng.weighted([[1, 35], [2, 35], [3, 15], [4, 15]] as const));
      for (let k = 0; k < size; k++) orderStart.push(first);
    }
  };
  for (let m = 0; m < matches.length; m++) {
    const match = matches[m]!;
    matchStart[m] = orderStart.length;
    if (hasSeats(match)) for (let k = 0; k < seasonSeats[seasonOf(match)]!.length; k++) orderStart.push(orderStart.length);
    seatEnd[m] = orderStart.length;
    placeOrders(counts.seasonTickets[m]!);
    saleEnd[m] = orderStart.length;
    placeOrders(counts.singles[m]!);
    if (match.sellsSeasonTickets) {
      const seats: number[] = [];
      const buyers: number[] = [];
      for (let i = seatEnd[m]!; i < saleEnd[m]!; i++) {
        if (orderStart[i] !== i) continue;
        const order = computeOrderFacts(building, i);
        if (order.orderStatus.group !== 'paid') continue;
        buyers.push(order.buyer);
        for (let k = 0; k < order.size; k++) seats.push(i + k);
      }
      seasonSeats[seasonOf(match)] = Uint32Array.from(seats);
      seasonBuyers[seasonOf(match)] = Int32Array.from(buyers);
    }
  }
  matchStart[matches.length] = orderStart.length;
  return {
    ...building,
    matchStart: Uint32Array.from(matchStart),
    seatEnd: Uint32Array.from(seatEnd),
    saleEnd: Uint32Array.from(saleEnd),
    orderStart: Uint32Array.from(orderStart),
  };
}

/**
 * Season-ticket sale tickets and single tickets per match: demand times how much of the
 * sales window has passed, the budget shared out in match order (season tickets first).
 */
function ticketsPerMatch(matches: Match[], total: number, nowMs: number): { seasonTickets: Uint32Array; singles: Uint32Array } {
  const demand = matches.map((m) => {
    const sold = Math.min(1, Math.max(0, (nowMs - m.salesStartMs) / (m.salesCloseMs - m.salesStartMs)));
    return [m.sellsSeasonTickets ? SEASON_TICKET_DEMAND * sold : 0, m.virtual ? 0 : m.popularity * sold] as const;
  });
  const sum = demand.reduce((a, [seasonTickets, singles]) => a + seasonTickets + singles, 0);
  const seasonTickets = new Uint32Array(matches.length);
  const singles = new Uint32Array(matches.length);
  let acc = 0;
  let placed = 0;
  const share = (weight: number): number => {
    acc += weight;
    const upTo = Math.round((acc / sum) * total);
    const count = upTo - placed;
    placed = upTo;
    return count;
  };
  for (let m = 0; m < matches.length; m++) {
    seasonTickets[m] = share(demand[m]![0]);
    singles[m] = share(demand[m]![1]);
  }
  return { seasonTickets, singles };
}

function matchOf(matchStart: ArrayLike<number>, index: number): number {
  return segmentOf(matchStart, index);
}

/** Whether ticket `index` is a season-ticket sale (a priced SeasonTicket order's ticket). */
function isSeasonTicketSale(source: TicketSource, index: number): boolean {
  const m = matchOf(source.matchStart, index);
  return index >= source.seatEnd[m]! && index < source.saleEnd[m]!;
}

/** The season-ticket sale ticket whose seat `index` is, or -1 for any other ticket. */
function seasonTicketOf(source: TicketSource, index: number): number {
  const m = matchOf(source.matchStart, index);
  if (index >= source.seatEnd[m]!) return -1;
  return source.seasonSeats[seasonOf(source.matches[m]!)]![index - source.matchStart[m]!]!;
}

/** Facts of recently seen orders: every ticket of an order asks for them, and prices of siblings. */
const recentOrders = new WeakMap<TicketSource, Map<number, OrderFacts>>();

function orderFacts(source: TicketSource, index: number): OrderFacts {
  const first = source.orderStart[index]!;
  let cache = recentOrders.get(source);
  if (!cache) recentOrders.set(source, (cache = new Map()));
  const known = cache.get(first);
  if (known) return known;
  const facts = computeOrderFacts(source, first);
  if (cache.size >= 2048) cache.delete(cache.keys().next().value!);
  cache.set(first, facts);
  return facts;
}

function computeOrderFacts(source: TicketSource, first: number): OrderFacts {
  let size = 1;
  while (first + size < source.orderStart.length && source.orderStart[first + size] === first) size++;
  const match = source.matches[matchOf(source.matchStart, first)]!;
  const rng = Rng.for(source.population.seed, 'ticket-order', first);
  const salesEnd = Math.min(match.salesCloseMs, source.nowMs - MINUTE_MS);
  const orderDateMs = Math.floor(match.salesStartMs + rng.next() * Math.max(0, salesEnd - match.salesStartMs));
  const existing = source.users.existingBefore(orderDateMs);
  let buyer = Math.min(existing - 1, Math.floor(existing * rng.next() ** 1.4));
  const seasonTicket = isSeasonTicketSale(source, first);
  const orderType = seasonTicket ? SEASON_TICKET_ORDER_TYPE : rng.chance(0.08) ? null : singleOrderType(source, rng);
  const orderStatus = rng.weighted(source.statuses);
  const channel = rng.pick(source.channels);
  // Most season-ticket orders are last season's holders renewing.
  const previous = seasonTicket && seasonOf(match) > 0 ? source.seasonBuyers[seasonOf(match) - 1]! : undefined;
  if (previous && previous.length > 0 && rng.chance(RENEWAL_SHARE)) buyer = previous[rng.int(0, previous.length - 1)]!;
  return { first, size, buyer, orderDateMs, orderType, orderStatus, channel };
}

/** The order type of a priced single-ticket order: the club's only one is drawn without a roll. */
function singleOrderType(source: TicketSource, rng: Rng): number {
  return source.singleTypes.length === 1 ? source.singleTypes[0]![0] : rng.weighted(source.singleTypes);
}

/** Price category and ticket type of a ticket (a seat has its season ticket's). */
function ticketKind(source: TicketSource, index: number): { category: keyof typeof CATEGORIES; type: keyof typeof TICKET_TYPES } {
  const rng = Rng.for(source.population.seed, 'ticket', index);
  const category = rng.int(1, 4) as keyof typeof CATEGORIES;
  const type = (isSeasonTicketSale(source, index) ? 1 : rng.weighted([[1, 70], [2, 15], [3, 8], [4, 7]] as const)) as keyof typeof TICKET_TYPES;
  return { category, type };
}

/** Who holds a ticket: the first of an order is the buyer's, the others mostly too. */
function holderOf(source: TicketSource, index: number, order: OrderFacts): number {
  if (index === order.first) return order.buyer;
  const rng = Rng.for(source.population.seed, 'ticket-holder', index);
  return rng.chance(0.7) ? order.buyer : rng.int(0, source.users.existingBefore(order.orderDateMs) - 1);
}

/** Price incl. VAT in whole kroner; a season-ticket seat was paid with its season ticket. */
function ticketPrice(source: TicketSource, index: number): number {
  if (seasonTicketOf(source, index) >= 0) return 0;
  const match = source.matches[matchOf(source.matchStart, index)]!;
  const order = orderFacts(source, index);
  if (order.orderType === null) return 0;
  const { category, type } = ticketKind(source, index);
  const base = isSeasonTicketSale(source, index) ? CATEGORY_PRICE[category] * 11 : CATEGORY_PRICE[category];
  return Math.round(base * PRICE_FACTOR[type] * (match.league === 'NM Cup' ? 0.8 : 1));
}

function ticketStatus(source: TicketSource, index: number, version: number): keyof typeof TICKET_STATUS {
  const match = source.matches[matchOf(source.matchStart, index)]!;
  const sale = seasonTicketOf(source, index);
  const order = orderFacts(source, sale < 0 ? index : sale);
  const rng = Rng.for(source.population.seed, 'ticket-status', index);
  // What became of the order shows on its tickets: free again, for sale again, or reserved.
  if (order.orderStatus.group === 'cancelled') return 1;
  if (order.orderStatus.group === 'refunded') return 7;
  if (order.orderStatus.group === 'pending') return 2;
  const played = match.kickoffMs < source.nowMs;
  if (!played) {
    if (version > 0) return version % 2 === 1 ? 9 : 3;
    if (sale >= 0) return 3;
    return order.orderType === null ? 1 : rng.weighted([[3, 85], [9, 10], [2, 3], [7, 2]] as const);
  }
  // A holder's seat is scanned when they come; holders stay away more often than buyers of one match.
  if (sale >= 0) return rng.weighted([[4, 70], [8, 6], [5, 24]] as const);
  return rng.weighted([[4, 66], [8, 12], [6, 4], [5, 18]] as const);
}

function ticketLastUpdate(source: TicketSource, index: number): number {
  const match = source.matches[matchOf(source.matchStart, index)]!;
  const sale = seasonTicketOf(source, index);
  const order = orderFacts(source, sale < 0 ? index : sale);
  const status = ticketStatus(source, index, 0);
  const rng = Rng.for(source.population.seed, 'ticket-update', index);
  const scanned = status === 4 || status === 6 || status === 8;
  const at = scanned ? match.kickoffMs - rng.next() * 90 * MINUTE_MS : order.orderDateMs + rng.next() * 2 * DAY_MS;
  return Math.floor(Math.min(at, source.nowMs - 1000));
}
