import { FANLAKE } from '../../src/simulator/clubs/fanlake.js';
import type { Item } from '../../src/simulator/store/cursor-resource.js';
import { cents, isPaid, seasonAt, seasonStarts, statusGroup, ticketKind } from './club-truth.js';

/**
 * Figures of the sales and attendance marts computed from the simulator's records as the API
 * serves them, following docs/metrics.md and the ticketing document alone (never the marts'
 * SQL): what the marts are compared with. The tests that use them run on the fanlake club
 * profile, whose declared meanings (club-truth.ts) say what an order status means.
 */

export { cents, seasonStarts, ticketKind };
export type { TicketKind } from './club-truth.js';

export const isCompleted = (record: Item): boolean => isPaid(FANLAKE, record);
export const isScanned = (ticket: Item): boolean => ticket.ticket_redeemed === true || ticket.id_ticket_status === 4 || ticket.id_ticket_status === 8;
/** An issued ticket of a real match that was scanned: attendance. */
export const countsAsAttendance = (ticket: Item): boolean => isCompleted(ticket) && ticket.just_seasonticket_sales !== true && isScanned(ticket);

export interface MatchAttendance {
  issued: number;
  attended: number;
  single: number;
  singleAttended: number;
  seats: number;
  seatsAttended: number;
  distributed: number;
  distributedAttended: number;
  finished: boolean;
}

/** marts.match_attendance: per real match, issued and attended tickets by kind. */
export function matchAttendance(tickets: Item[]): Map<string, MatchAttendance> {
  const matches = new Map<string, MatchAttendance>();
  for (const ticket of tickets) {
    if (ticket.just_seasonticket_sales === true) continue;
    const id = String(ticket.id_event);
    const match = matches.get(id) ?? { issued: 0, attended: 0, single: 0, singleAttended: 0, seats: 0, seatsAttended: 0, distributed: 0, distributedAttended: 0, finished: false };
    matches.set(id, match);
    match.finished ||= ticket.match_finished === true;
    if (!isCompleted(ticket)) continue;
    const attended = countsAsAttendance(ticket) ? 1 : 0;
    match.issued++;
    match.attended += attended;
    const kind = ticketKind(ticket);
    if (kind === 'single') [match.single, match.singleAttended] = [match.single + 1, match.singleAttended + attended];
    if (kind === 'season_ticket_seat') [match.seats, match.seatsAttended] = [match.seats + 1, match.seatsAttended + attended];
    if (kind === 'distributed') [match.distributed, match.distributedAttended] = [match.distributed + 1, match.distributedAttended + attended];
  }
  return matches;
}

export interface SeasonTicket {
  ticket_id: string;
  season_ticket_id: string;
  season: string;
  holder_user_id: string;
  buyer_user_id: string;
  is_active: boolean;
  price_cents: number;
  seats_issued: number;
  seats_attended: number;
}

/** marts.fct_season_tickets: each sale ticket of a season-ticket sale, with the seats carrying its id. */
export function seasonTickets(tickets: Item[]): SeasonTicket[] {
  const seats = new Map<string, { issued: number; attended: number }>();
  for (const ticket of tickets) {
    if (ticketKind(ticket) !== 'season_ticket_seat' || !isCompleted(ticket)) continue;
    const id = ticket.id_season_ticket as string;
    const entry = seats.get(id) ?? { issued: 0, attended: 0 };
    seats.set(id, entry);
    entry.issued++;
    if (countsAsAttendance(ticket)) entry.attended++;
  }
  return tickets
    .filter((ticket) => ticketKind(ticket) === 'season_ticket')
    .map((ticket) => ({
      ticket_id: ticket.id as string,
      season_ticket_id: ticket.id_season_ticket as string,
      season: ticket.season as string,
      holder_user_id: String(ticket.user_held_id),
      buyer_user_id: String(ticket.user_aquired_id),
      is_active: isCompleted(ticket),
      price_cents: cents(ticket.ticket_price),
      seats_issued: seats.get(ticket.id_season_ticket as string)?.issued ?? 0,
      seats_attended: seats.get(ticket.id_season_ticket as string)?.attended ?? 0,
    }));
}

export interface RevenueCell {
  revenue: number;
  items: number;
  orders: Set<string>;
  cancelled: number;
  cancelledItems: number;
  refunded: number;
  refundedItems: number;
}

/**
 * marts.revenue_monthly keyed `month|season|product_line|channel` (amounts in cents): sold
 * tickets at their match's season, merchandise lines at the season running when ordered.
 */
export function revenueByMonth(tickets: Item[], merchandise: Item[]): Map<string, RevenueCell> {
  const cells = new Map<string, RevenueCell>();
  const add = (orderedAt: string, season: string | null, product: string, channel: string, order: string, status: unknown, amount: number) => {
    const key = `${orderedAt.slice(0, 7)}|${season ?? ''}|${product}|${channel}`;
    const cell = cells.get(key) ?? { revenue: 0, items: 0, orders: new Set<string>(), cancelled: 0, cancelledItems: 0, refunded: 0, refundedItems: 0 };
    cells.set(key, cell);
    if (status === 'paid') [cell.revenue, cell.items] = [cell.revenue + amount, cell.items + 1];
    if (status === 'paid') cell.orders.add(order);
    if (status === 'cancelled') [cell.cancelled, cell.cancelledItems] = [cell.cancelled + amount, cell.cancelledItems + 1];
    if (status === 'refunded') [cell.refunded, cell.refundedItems] = [cell.refunded + amount, cell.refundedItems + 1];
  };
  for (const ticket of tickets) {
    const kind = ticketKind(ticket);
    if (kind !== 'single' && kind !== 'season_ticket') continue;
    const product = kind === 'season_ticket' ? 'season_ticket' : 'ticket';
    add(ticket.order_date as string, ticket.season as string, product, ticket.order_channel as string, ticket.id_sale_order as string, statusGroup(FANLAKE, ticket), cents(ticket.ticket_price));
  }
  const starts = seasonStarts(tickets);
  for (const line of merchandise) {
    const season = seasonAt(starts, line.order_datetime as string);
    add(line.order_datetime as string, season, 'merchandise', line.sale_channel_txt as string, line.id_order as string, statusGroup(FANLAKE, line), cents(line.price_subtotal) + cents(line.vat));
  }
  return cells;
}

/** marts.ticket_type_sales keyed `season|product_line|ticket type|price category` (cents). */
export function ticketTypeSales(tickets: Item[]): Map<string, { sold: number; revenue: number; cancelled: number; refunded: number }> {
  const cells = new Map<string, { sold: number; revenue: number; cancelled: number; refunded: number }>();
  for (const ticket of tickets) {
    const kind = ticketKind(ticket);
    if (kind !== 'single' && kind !== 'season_ticket') continue;
    const key = `${ticket.season as string}|${kind === 'season_ticket' ? 'season_ticket' : 'ticket'}|${ticket.ticket_type_txt as string}|${ticket.ticket_price_description as string}`;
    const cell = cells.get(key) ?? { sold: 0, revenue: 0, cancelled: 0, refunded: 0 };
    cells.set(key, cell);
    if (isCompleted(ticket)) [cell.sold, cell.revenue] = [cell.sold + 1, cell.revenue + cents(ticket.ticket_price)];
    if (statusGroup(FANLAKE, ticket) === 'cancelled') cell.cancelled++;
    if (statusGroup(FANLAKE, ticket) === 'refunded') cell.refunded++;
  }
  return cells;
}
