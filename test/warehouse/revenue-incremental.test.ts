import { beforeAll, describe, expect, it } from 'vitest';
import { buildModels, type ModelResult } from '../../src/models/build-models.js';
import { sharedWarehouse } from '../helpers/shared-warehouse.js';
import { changeWarehouse, copyWarehouse, queryWarehouse, tableSnapshot } from '../helpers/warehouse.js';

/**
 * The ticket kinds and the revenue lines are incremental: a build computes the tickets loaded
 * since its last one (with every ticket of their season tickets) and the merchandise lines once
 * they were built again. After changes that reach across rows (every seat of a season ticket
 * moved to another season's match, a seat moved from one season ticket to another, a ticket
 * that becomes distributed and so no revenue line, a merchandise line changed and one gone), the
 * incremental build must leave exactly what `build --full-refresh` makes of the same raw data.
 */
const COMPARED = [
  'intermediate.int_ticket_kinds',
  'intermediate.int_revenue_lines',
  'marts.revenue_monthly',
  'marts.revenue_by_season_day',
  'marts.fct_season_tickets',
  'marts.match_attendance',
  'marts.season_ticket_holders',
];

let shared: string;

beforeAll(async () => {
  shared = await sharedWarehouse({ simulator: { scale: 0.02, seed: 42 } });
}, 180_000);

const built = (results: ModelResult[], model: string) => results.find((result) => result.model === model);

describe('incremental ticket kinds and revenue lines', () => {
  let incremental: Map<string, string>;
  let full: Map<string, string>;
  let results: ModelResult[];
  let totalTickets: number;
  let moved: { seasonTicket: string; from: string; to: string };
  let dataDir: string;

  beforeAll(async () => {
    dataDir = copyWarehouse(shared);
    // The build after a change reads its last build's state: one build first, as a club's runs do.
    await buildModels({ dataDir });
    moved = await changeWarehouse(dataDir, async (run, loaded) => {
      // A season ticket whose seats are all in one season, and a match of another season.
      const [seats] = await run(`
        select kinds.season_ticket_id, any_value(kinds.season) as season
        from intermediate.int_ticket_kinds as kinds
        where kinds.ticket_kind = 'season_ticket_seat' and kinds.season_ticket_id in (select season_ticket_id from intermediate.int_ticket_kinds where ticket_kind = 'season_ticket')
        group by kinds.season_ticket_id having count(distinct kinds.season) = 1
        order by kinds.season_ticket_id limit 1`);
      expect(seats, 'a season ticket with seats').toBeDefined();
      const [other] = await run(`
        select tickets.id as ticket_id, tickets.season from raw.ticketing_tickets as tickets
        inner join marts.dim_match as matches on matches.match_id = tickets.id_event
        where tickets.season <> '${seats!.season}' and not matches.is_season_ticket_sale
        order by tickets.id limit 1`);
      expect(other, 'a ticket of another season').toBeDefined();
      const matchColumns = ['id_event', 'match_date', 'match_time', 'league_name', 'match_sales_start', 'match_sales_close', 'match_finished', 'match_team_home_id', 'match_team_away_id', 'match_team_home_name', 'match_team_away_name', 'name', 'season', 'just_seasonticket_sales', 'event_type'];
      const stamp = `_extracted_at = (select max(_extracted_at) + interval 1 hour from raw.ticketing_tickets)`;
      // every seat of it moves to the other season's match: the season ticket's season follows its seats
      await run(`
        update raw.ticketing_tickets as seat set ${matchColumns.map((column) => `${column} = source.${column}`).join(', ')}, ${stamp}
        from (select * from raw.ticketing_tickets where id = '${other!.ticket_id}') as source
        where seat.id_season_ticket = '${seats!.season_ticket_id}' and coalesce(try_cast(seat.ticket_price as double), 0) = 0`);
      // a seat of another season ticket moves to this one: the one it left is computed again
      await run(`
        update raw.ticketing_tickets set id_season_ticket = '${seats!.season_ticket_id}', ${stamp}
        where id = (select min(id) from raw.ticketing_tickets where id_season_ticket is not null and id_season_ticket <> '${seats!.season_ticket_id}' and coalesce(try_cast(ticket_price as double), 0) = 0)`);
      // a sold single ticket becomes a distributed one without a price: its revenue line goes
      await run(`
        update raw.ticketing_tickets set order_type = null, order_type_txt = null, ticket_price = '0', ${stamp}
        where id = (select min(ticket_id) from intermediate.int_ticket_kinds where ticket_kind = 'single' and product_line = 'ticket')`);
      // a merchandise line changes its price and another one is gone
      await run(`update raw.ticketing_merchandise set price_subtotal = price_subtotal + 100, _extracted_at = _extracted_at + interval 1 hour where id = (select min(id) from raw.ticketing_merchandise)`);
      await run(`delete from raw.ticketing_merchandise where id = (select max(id) from raw.ticketing_merchandise)`);
      await loaded('raw.ticketing_tickets');
      await loaded('raw.ticketing_merchandise');
      const [{ n }] = (await run(`select count(*)::int as n from intermediate.int_ticket_kinds`)) as [{ n: number }];
      totalTickets = n;
      return { seasonTicket: String(seats!.season_ticket_id), from: String(seats!.season), to: String(other!.season) };
    });

    const rebuilt = copyWarehouse(dataDir);
    results = await buildModels({ dataDir });
    incremental = await tableSnapshot(dataDir, COMPARED);
    await buildModels({ dataDir: rebuilt, fullRefresh: true });
    full = await tableSnapshot(rebuilt, COMPARED);
  }, 300_000);

  it('computes only the changed tickets and their season tickets', () => {
    const kinds = built(results, 'int_ticket_kinds');
    expect(kinds?.status).toBe('ok');
    expect(kinds?.rows).toBeGreaterThan(0);
    expect(kinds?.rows).toBeLessThan(totalTickets / 10);
  });

  it('moves the season ticket to the season its seats moved to', async () => {
    expect(moved.to).not.toBe(moved.from);
    const [row] = await queryWarehouse(dataDir, `select string_agg(distinct season, ',') as season from intermediate.int_ticket_kinds where season_ticket_id = '${moved.seasonTicket}' and ticket_kind = 'season_ticket'`);
    expect(row?.season).toBe(moved.to);
  });

  it.each(COMPARED)('leaves %s as a full rebuild does', (relation) => {
    expect(incremental.get(relation)).toBe(full.get(relation));
  });
});
