import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/simulator.js';
import type { Item } from '../../src/simulator/store/cursor-resource.js';
import { TEST_NOW, startTestSimulator } from '../helpers/simulator.js';

/** Season tickets as docs/decisions.md says the simulator serves them. */
describe('simulated season tickets', () => {
  let sim: Simulator;
  let tickets: Item[];
  beforeAll(async () => {
    sim = await startTestSimulator({ scale: 0.05 });
    tickets = [...sim.ticketingRecords('tickets')];
  });
  afterAll(() => sim.close());

  const sales = () => tickets.filter((ticket) => ticket.just_seasonticket_sales === true);
  const seatsOf = (sale: Item) => tickets.filter((ticket) => ticket.just_seasonticket_sales === false && ticket.id_season_ticket === sale.id_season_ticket);

  it('sells each season ticket as one ticket of the virtual match, order type SeasonTicket, with an id of its own', () => {
    expect(sales().length).toBeGreaterThan(20);
    for (const sale of sales()) {
      expect(sale.order_type).toBe(12);
      expect(sale.order_type_txt).toBe('SeasonTicket');
      expect(sale.id_season_ticket).toMatch(new RegExp(`^ST-${sale.season as string}-\\d+$`));
      expect(Number(sale.ticket_price)).toBeGreaterThan(0);
    }
    expect(new Set(sales().map((sale) => sale.id_season_ticket)).size).toBe(sales().length);
  });

  it('gives a completed season ticket a seat on every league match of its season, for its holder, paid with the season ticket', () => {
    const now = Date.parse(TEST_NOW);
    expect(sales().some((sale) => sale.order_status_text !== 'Completed'), 'a cancelled or refunded one among them').toBe(true);
    for (const sale of sales()) {
      const seats = seatsOf(sale);
      if (sale.order_status_text !== 'Completed') {
        expect(seats, `a ${sale.order_status_text as string} season ticket gives no seats`).toEqual([]);
        continue;
      }
      const league = new Set(tickets.filter((ticket) => ticket.season === sale.season && ticket.league_name === 'Eliteserien').map((ticket) => ticket.id_event));
      expect(seats.map((seat) => seat.id_event).sort()).toEqual([...league].sort());
      for (const seat of seats) {
        expect(seat).toMatchObject({
          order_type: 12, order_status_text: 'Completed', id_sale_order: sale.id_sale_order, order_date: sale.order_date,
          user_held_id: sale.user_held_id, user_aquired_id: sale.user_aquired_id, ticket_price: '0.00',
          ticket_price_category: sale.ticket_price_category, ticket_section: sale.ticket_section, ticket_row: sale.ticket_row, ticket_seat: sale.ticket_seat,
        });
        const played = Date.parse(`${seat.match_date as string}T${seat.match_time as string}Z`) < now;
        // scanned only when the holder came to a played match; a match to come waits, paid
        if (!played) expect(seat.id_ticket_status).toBe(3);
        else expect([4, 5, 8]).toContain(seat.id_ticket_status);
      }
    }
    const played = tickets.filter((ticket) => ticket.id_season_ticket && ticket.just_seasonticket_sales === false && ticket.match_finished === true);
    const scanned = played.filter((seat) => seat.ticket_redeemed === true || seat.id_ticket_status === 8);
    expect(scanned.length / played.length).toBeGreaterThan(0.6);
    expect(scanned.length / played.length).toBeLessThan(0.9);
  });

  it('renews most season tickets: a season\'s buyers mostly bought one the season before', () => {
    const buyersBySeason = new Map<string, Set<unknown>>();
    for (const sale of sales()) {
      if (sale.order_status_text !== 'Completed') continue;
      buyersBySeason.set(sale.season as string, (buyersBySeason.get(sale.season as string) ?? new Set()).add(sale.user_aquired_id));
    }
    const seasons = [...buyersBySeason.keys()].sort();
    let returning = 0;
    let later = 0;
    for (let k = 1; k < seasons.length; k++) {
      const previous = buyersBySeason.get(seasons[k - 1]!)!;
      for (const buyer of buyersBySeason.get(seasons[k]!)!) [returning, later] = [returning + (previous.has(buyer) ? 1 : 0), later + 1];
    }
    expect(returning / later).toBeGreaterThan(0.4);
  });

  it('lists the completed season tickets of a season as ground truth', () => {
    const season = sales()[0]!.season as string;
    const listed = sim.ticketing.tickets.seasonTicketSales(season).map((index) => sim.ticketing.tickets.record(index).id);
    const completed = sales().filter((sale) => sale.season === season && sale.order_status_text === 'Completed').map((sale) => sale.id);
    expect(listed.sort()).toEqual(completed.sort());
  });
});
