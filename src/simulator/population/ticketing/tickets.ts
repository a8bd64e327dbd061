import { CursorResource, type Item } from '../../store/cursor-resource.js';
import { Rng } from '../../random.js';
import type { Population } from '../population.js';
import { SCALE_1 } from '../population.js';
import { DAY_MS, HOUR_MS, MINUTE_MS, iso, isoDate } from '../time.js';
import { type Match, buildMatches } from './matches.js';
import type { Users } from './users.js';
import { segmentOf } from '../../store/sorted.js';

export const TICKET_STATUS = { 1: 'Free', 2: 'Reserved', 3: 'Paid', 4: 'Redeemed', 5: 'Unredeemed', 6: 'RedeemCodeChecked', 7: 'ForSell', 8: 'Used', 9: 'ReadyForPickUp' } as const;
export const ORDER_TYPE = { 5: 'Kiosk', 6: 'Ticket', 7: 'Auction', 8: 'Merchandise', 9: 'Pledge', 10: 'Competition', 11: 'Deposit', 12: 'SeasonTicket', 13: 'Lottery', 14: 'PlayerVotes', 15: 'Subscription', 16: 'GiftCard' } as const;
/** Order statuses are not listed by the documents; these are the simulator's choice. */
export const TICKET_ORDER_STATUS = { 1: 'Completed', 2: 'Cancelled', 3: 'Refunded' } as const;
const TICKET_TYPES = { 1: 'Adult', 2: 'Child', 3: 'Senior', 4: 'Student' } as const;
const PRICE_FACTOR = { 1: 1, 2: 0.5, 3: 0.7, 4: 0.8 } as const;
const CATEGORIES = { 1: 'Long side', 2: 'Short side', 3: 'Family stand', 4: 'North stand' } as const;
const CATEGORY_PRICE = { 1: 420, 2: 320, 3: 260, 4: 220 } as const;
const CHANNELS = ['web', 'app', 'box office', 'partner'] as const;

interface OrderFacts {
  readonly first: number;
  readonly size: number;
  readonly buyer: number;
  readonly orderDateMs: number;
  /** null for distributed (free) tickets. */
  readonly orderType: 6 | 12 | null;
  readonly orderStatus: 1 | 2 | 3;
  readonly channel: string;
}

/** Tickets (`/api/tickets`): one row per sold or distributed ticket, grouped in orders. */
export class Tickets extends CursorResource {
  readonly matches: Match[];
  private readonly source: TicketSource;

  constructor(population: Population, users: Users, nowMs: number) {
    const seed = population.seed;
    const total = Math.max(100, Math.round(SCALE_1.tickets * population.scale));
    const matches = buildMatches(seed, nowMs);
    const matchStart = ticketsPerMatch(matches, total, nowMs);
    const orderStart = new Uint32Array(total);
    const rng = Rng.for(seed, 'ticket-orders');
    for (let m = 0; m < matches.length; m++) {
      let i = matchStart[m]!;
      while (i < matchStart[m + 1]!) {
        const size = Math.min(matchStart[m + 1]! - i, rng.weighted([[1, 35], [2, 35], [3, 15], [4, 15]] as const));
        orderStart.fill(i, i, i + size);
        i += size;
      }
    }
    const lastUpdate = new Float64Array(total);
    // Field initialisers run after super(), so compute facts through a throwaway view.
    const facts = { population, users, nowMs, matches, matchStart, orderStart };
    for (let i = 0; i < total; i++) lastUpdate[i] = ticketLastUpdate(facts, i);
    super('tickets', lastUpdate);
    this.matches = matches;
    this.source = facts;
  }

  keyOf(item: Item): string {
    return String(item.id);
  }

  protected newKey(index: number): Item {
    return { id: ticketId(index) };
  }

  protected generate(index: number, version: number, lastUpdate: string): Item {
    const match = this.matches[matchOf(this.source.matchStart, index)]!;
    const order = orderFacts(this.source, index);
    const rng = Rng.for(this.source.population.seed, 'ticket', index);
    const status = ticketStatus(this.source, index, version);
    const category = rng.int(1, 4) as keyof typeof CATEGORIES;
    const type = (match.seasonTicketSale ? 1 : rng.weighted([[1, 70], [2, 15], [3, 8], [4, 7]] as const)) as keyof typeof TICKET_TYPES;
    const price = ticketPrice(this.source, index);
    const orderPrice = Array.from({ length: order.size }, (_, k) => ticketPrice(this.source, order.first + k)).reduce((a, b) => a + b, 0);
    const subtotal = Math.round((price / 1.12) * 100) / 100;
    const holderIndex = index === order.first || rng.chance(0.7) ? order.buyer : rng.int(0, this.source.users.existingBefore(order.orderDateMs) - 1);
    const buyer = this.source.users.record(order.buyer);
    const holder = holderIndex === order.buyer ? buyer : this.source.users.record(holderIndex);
    const released = status === 7;
    const redeemed = status === 4 || status === 6 || (status === 8 && !rng.chance(0.05));
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
      name: 'Fanlake Arena',
      season: match.season,
      external_id: rng.chance(0.1) ? `EXT-${rng.digits(8)}` : null,
      order_type: order.orderType,
      order_type_txt: order.orderType === null ? null : ORDER_TYPE[order.orderType],
      order_channel: order.channel,
      order_status: order.orderStatus,
      order_status_text: TICKET_ORDER_STATUS[order.orderStatus],
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
      ticket_section: String.fromCharCode(65 + rng.int(0, 7)),
      ticket_row: String(rng.int(1, 30)),
      ticket_seat: String(rng.int(1, 40)),
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
      id_season_ticket: order.orderType === 12 ? `ST-${match.season}-${order.first + 1}` : null,
      just_seasonticket_sales: match.seasonTicketSale,
      event_type: 1,
    };
  }
}

export function ticketId(index: number): string {
  return `T${String(index + 1).padStart(8, '0')}`;
}

interface TicketSource {
  readonly population: Population;
  readonly users: Users;
  readonly nowMs: number;
  readonly matches: Match[];
  readonly matchStart: Uint32Array;
  readonly orderStart: Uint32Array;
}

function ticketsPerMatch(matches: Match[], total: number, nowMs: number): Uint32Array {
  const weights = matches.map((m) => {
    const sold = Math.min(1, Math.max(0, (nowMs - m.salesStartMs) / (m.salesCloseMs - m.salesStartMs)));
    return m.popularity * sold;
  });
  const sum = weights.reduce((a, b) => a + b, 0);
  const start = new Uint32Array(matches.length + 1);
  let acc = 0;
  for (let m = 0; m < matches.length; m++) {
    acc += weights[m]!;
    start[m + 1] = Math.round((acc / sum) * total);
  }
  return start;
}

function matchOf(matchStart: Uint32Array, index: number): number {
  return segmentOf(matchStart, index);
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
  const buyer = Math.min(existing - 1, Math.floor(existing * rng.next() ** 1.4));
  const orderType = match.seasonTicketSale ? 12 : rng.chance(0.08) ? null : 6;
  const orderStatus = rng.weighted([[1, 93], [2, 4], [3, 3]] as const);
  return { first, size, buyer, orderDateMs, orderType, orderStatus, channel: rng.pick(CHANNELS) };
}

function ticketPrice(source: TicketSource, index: number): number {
  const match = source.matches[matchOf(source.matchStart, index)]!;
  const order = orderFacts(source, index);
  if (order.orderType === null) return 0;
  const rng = Rng.for(source.population.seed, 'ticket', index);
  const category = rng.int(1, 4) as keyof typeof CATEGORY_PRICE;
  const type = (match.seasonTicketSale ? 1 : rng.weighted([[1, 70], [2, 15], [3, 8], [4, 7]] as const)) as keyof typeof PRICE_FACTOR;
  const base = match.seasonTicketSale ? CATEGORY_PRICE[category] * 11 : CATEGORY_PRICE[category];
  return Math.round(base * PRICE_FACTOR[type] * (match.league === 'NM Cup' ? 0.8 : 1));
}

function ticketStatus(source: TicketSource, index: number, version: number): keyof typeof TICKET_STATUS {
  const match = source.matches[matchOf(source.matchStart, index)]!;
  const order = orderFacts(source, index);
  const rng = Rng.for(source.population.seed, 'ticket-status', index);
  if (order.orderStatus === 2) return 1;
  if (order.orderStatus === 3) return 7;
  const played = match.kickoffMs < source.nowMs;
  if (!played) {
    if (version > 0) return version % 2 === 1 ? 9 : 3;
    return order.orderType === null ? 1 : rng.weighted([[3, 85], [9, 10], [2, 3], [7, 2]] as const);
  }
  return rng.weighted([[4, 66], [8, 12], [6, 4], [5, 18]] as const);
}

function ticketLastUpdate(source: TicketSource, index: number): number {
  const match = source.matches[matchOf(source.matchStart, index)]!;
  const order = orderFacts(source, index);
  const status = ticketStatus(source, index, 0);
  const rng = Rng.for(source.population.seed, 'ticket-update', index);
  const scanned = status === 4 || status === 6 || status === 8;
  const at = scanned ? match.kickoffMs - rng.next() * 90 * MINUTE_MS : order.orderDateMs + rng.next() * 2 * DAY_MS;
  return Math.floor(Math.min(at, source.nowMs - 1000));
}
