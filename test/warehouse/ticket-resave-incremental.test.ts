import { beforeAll, describe, expect, it } from 'vitest';
import { buildModels, type ModelResult } from '../../src/models/build-models.js';
import { sharedWarehouse } from '../helpers/shared-warehouse.js';
import { changeWarehouse, copyWarehouse, tableSnapshot } from '../helpers/warehouse.js';

/**
 * fct_tickets names updated_at a lineage column: tickets saved again upstream with nothing else
 * changed (the API gives them a new last update, as the quiet-hour bench's touched tickets) are
 * written to fct_tickets, but are no change for the models after it. Beside them one ticket
 * really changes in a second round, which every model after fct_tickets must follow. Either
 * way the warehouse must be what `build --full-refresh` makes of the same raw data.
 */
const COMPARED = [
  'marts.fct_tickets',
  'intermediate.int_ticket_kinds',
  'intermediate.int_revenue_lines',
  'intermediate.int_fan_purchases',
  'marts.dim_fan',
  'marts.match_summary',
  'marts.ticket_type_sales',
  'marts.fct_season_tickets',
  'marts.season_retention',
  'marts.revenue_monthly',
];

/**
 * A re-saved ticket is no change for int_ticket_kinds, which keeps the _extracted_at of the read
 * that last changed the ticket, as its lineage column says (the quiet-hour bench compares
 * without lineage columns too).
 */
const LINEAGE_ASIDE = { 'intermediate.int_ticket_kinds': ['_extracted_at'] };

/** Models that read fct_tickets, directly or through int_ticket_kinds, and nothing an identity or fan change reaches. */
const TICKET_CHILDREN = ['int_ticket_kinds', 'int_revenue_lines', 'match_summary', 'ticket_type_sales', 'fct_season_tickets', 'revenue_monthly'];

let shared: string;

beforeAll(async () => {
  shared = await sharedWarehouse({ simulator: { scale: 0.02, seed: 42 } });
}, 180_000);

const statusOf = (results: ModelResult[], model: string) => results.find((result) => result.model === model)?.status;

/** Gives `count` sold tickets (after `after`) a new last update, and `changed` of them a new price too; then builds and rebuilds in full. */
async function resaveAndBuild(dataDir: string, round: number, changed: number) {
  await changeWarehouse(dataDir, async (run, loaded) => {
    const stamp = `_extracted_at = (select max(_extracted_at) + interval 1 hour from raw.ticketing_tickets)`;
    const picked = `select id from raw.ticketing_tickets where try_cast(ticket_price as double) > 0 order by hash(id, ${round}) limit 40`;
    await run(`update raw.ticketing_tickets set last_update = strftime(now() + interval (${round}) hour, '%Y-%m-%dT%H:%M:%SZ'), ${stamp} where id in (${picked})`);
    if (changed > 0) {
      await run(`update raw.ticketing_tickets set ticket_price = cast(try_cast(ticket_price as double) + 10 as varchar) where id in (select id from (${picked}) limit ${changed})`);
    }
    await loaded('raw.ticketing_tickets');
  });
  const rebuilt = copyWarehouse(dataDir);
  const results = await buildModels({ dataDir });
  const incremental = await tableSnapshot(dataDir, COMPARED, LINEAGE_ASIDE);
  await buildModels({ dataDir: rebuilt, fullRefresh: true });
  return { results, incremental, full: await tableSnapshot(rebuilt, COMPARED, LINEAGE_ASIDE) };
}

describe('tickets saved again upstream', () => {
  let dataDir: string;
  let resaved: Awaited<ReturnType<typeof resaveAndBuild>>;
  let changed: Awaited<ReturnType<typeof resaveAndBuild>>;

  beforeAll(async () => {
    dataDir = copyWarehouse(shared);
    // The build after a change reads its last build's state: one build first, as a club's runs do.
    await buildModels({ dataDir });
    resaved = await resaveAndBuild(dataDir, 1, 0);
    changed = await resaveAndBuild(dataDir, 2, 1);
  }, 400_000);

  it('are written to fct_tickets, and change nothing after it', () => {
    expect(statusOf(resaved.results, 'fct_tickets')).toBe('ok');
    expect(Object.fromEntries(TICKET_CHILDREN.map((model) => [model, statusOf(resaved.results, model)]))).toEqual(Object.fromEntries(TICKET_CHILDREN.map((model) => [model, 'unchanged'])));
  });

  it('beside a ticket whose price changed, rebuild what reads the tickets', () => {
    expect(statusOf(changed.results, 'int_ticket_kinds')).toBe('ok');
    expect(statusOf(changed.results, 'int_revenue_lines')).toBe('ok');
    expect(statusOf(changed.results, 'ticket_type_sales')).toBe('ok');
  });

  it.each(COMPARED)('leave %s as a full rebuild does, after the re-saves alone and after the change', (relation) => {
    expect(resaved.incremental.get(relation)).toBe(resaved.full.get(relation));
    expect(changed.incremental.get(relation)).toBe(changed.full.get(relation));
  });
});
