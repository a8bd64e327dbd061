import { copyFileSync, cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildModels } from '../../src/models/build-models.js';
import { runChecks } from '../../src/models/checks/run-checks.js';
import { inTransaction, queryRows, withConnection } from '../../src/core/duckdb.js';
import { ChangedKeys } from '../../src/warehouse/changed-keys.js';
import { REPO, tempDataDir } from '../helpers/cli.js';
import { sharedWarehouse } from '../helpers/shared-warehouse.js';

/**
 * The books-balance tests of `check` pass on good data and fail on a model broken on purpose:
 * each case copies `sql/`, changes one model the way a careless edit would, rebuilds a copy of
 * the warehouse with it and expects exactly the named test to catch it. A test that cannot fail
 * would let a sixth of the revenue go missing unnoticed.
 */
let dataDir: string;

beforeAll(async () => {
  dataDir = await sharedWarehouse({ simulator: { scale: 0.02, seed: 42 } });
}, 180_000);

/** A copy of the data dir and of `sql/` with one model's text replaced; the checks after a rebuild. */
async function checksWithBrokenModel(model: string, from: string, to: string, clubDir?: string) {
  const modelsDir = join(mkdtempSync(join(tmpdir(), 'fanlake-broken-sql-')), 'sql');
  cpSync(join(REPO, 'sql'), modelsDir, { recursive: true });
  const path = join(modelsDir, model);
  const text = readFileSync(path, 'utf8');
  expect(text, `${model} has the text to break`).toContain(from);
  writeFileSync(path, text.replace(from, to));
  const copy = tempDataDir();
  copyFileSync(join(dataDir, 'warehouse.duckdb'), join(copy, 'warehouse.duckdb'));
  const built = await buildModels({ dataDir: copy, modelsDir, ...(clubDir ? { clubDir } : {}) });
  expect(built.filter((result) => result.status === 'failed').map((result) => `${result.model}: ${String(result.error)}`)).toEqual([]);
  const results = await runChecks({ dataDir: copy, modelsDir, record: false });
  return { failing: results.filter((result) => result.status !== 'pass' && result.status !== 'skipped'), results };
}

describe('books that balance', () => {
  it('pass on the untouched models', async () => {
    const results = await runChecks({ dataDir, record: false });
    const books = results.filter((result) => result.name.startsWith('tests/books_'));
    expect(books.map((result) => result.name).sort()).toEqual([
      'tests/books_consents', 'tests/books_match_revenue', 'tests/books_revenue_by_product_line', 'tests/books_sales_lines_counted_once', 'tests/books_season_tickets',
    ]);
    expect(books.filter((result) => result.status !== 'pass')).toEqual([]);
  });

  it.each([
    {
      test: 'tests/books_sales_lines_counted_once',
      why: 'revenue lines that lose the cheap tickets',
      model: 'intermediate/int_revenue_lines.sql',
      from: "    select 'tickets' as resource, * from ticket_lines\n",
      to: "    select 'tickets' as resource, * from ticket_lines where amount > 300\n",
    },
    {
      test: 'tests/books_revenue_by_product_line',
      why: 'a monthly revenue that leaves out a channel',
      model: 'marts/revenue_monthly.sql',
      from: "coalesce(sum(amount) filter (where status_group = 'paid'), 0) as revenue,",
      to: "coalesce(sum(amount) filter (where status_group = 'paid' and channel <> 'partner'), 0) as revenue,",
    },
    {
      test: 'tests/books_match_revenue',
      why: 'match revenue that leaves out a channel',
      model: 'marts/match_summary.sql',
      from: 'coalesce(sum(ticket_price) filter (where is_sold), 0) as ticket_revenue,',
      to: "coalesce(sum(ticket_price) filter (where is_sold and order_channel <> 'partner'), 0) as ticket_revenue,",
    },
    {
      test: 'tests/books_season_tickets',
      why: 'season tickets that lose some sales',
      model: 'marts/fct_season_tickets.sql',
      from: "    where ticket_kinds.ticket_kind = 'season_ticket'\n",
      to: "    where ticket_kinds.ticket_kind = 'season_ticket' and tickets.ticket_id not like '%7'\n",
    },
    {
      test: 'tests/books_consents',
      why: 'consent events that drop some grants',
      model: 'intermediate/int_engagement_consent_events.sql',
      from: '    select * from engagement_grants\n',
      to: "    select * from engagement_grants where record_id not like '%3'\n",
    },
    {
      test: 'tests/season_ticket_ids_name_one_season_ticket',
      why: 'a season ticket id shared by every holder of a season',
      model: 'marts/fct_season_tickets.sql',
      from: '        sales.season_ticket_id,\n',
      to: '        sales.season as season_ticket_id,\n',
    },
  ])('$test fails on $why', async ({ test, model, from, to }) => {
    const { failing } = await checksWithBrokenModel(model, from, to);
    expect(failing.map((result) => result.name)).toContain(test);
    const result = failing.find((candidate) => candidate.name === test)!;
    expect(result.severity).toBe('error');
    expect(result.failures).toBeGreaterThan(0);
  }, 60_000);

  it('sales lines counted once: after a pass, reads the keys a build changed, and finds a ticket whose revenue line a build lost, as a whole check does', async () => {
    const copy = tempDataDir();
    copyFileSync(join(dataDir, 'warehouse.duckdb'), join(copy, 'warehouse.duckdb'));
    const name = 'tests/books_sales_lines_counted_once';
    const first = (await runChecks({ dataDir: copy })).find((result) => result.name === name);
    expect(first).toMatchObject({ status: 'pass' });
    // a merge that lost one ticket's line, recorded as a build records the keys it changes
    await withConnection(join(copy, 'warehouse.duckdb'), async (connection) => {
      const [line] = await queryRows(connection, "select line_id from intermediate.int_revenue_lines where line_id like 'ticket:%' order by line_id limit 1");
      await inTransaction(connection, async () => {
        const keys = await ChangedKeys.start(connection, 'intermediate.int_revenue_lines', 'intermediate.int_revenue_lines', ['line_id']);
        await keys.deleteWhere(`line_id = '${String(line!.line_id)}'`);
        await keys.finish();
      });
    });
    const results = await runChecks({ dataDir: copy });
    const books = results.find((result) => result.name === name);
    expect(books).toMatchObject({ status: 'fail', failures: 1, changedRowsOnly: true, sample: [expect.objectContaining({ record_kind: 'ticket', kinds: '1', revenue_lines: '0' })] });
    const verdicts = (all: typeof results) => all.map((result) => [result.name, result.status, result.failures, result.sample]);
    expect(verdicts(results)).toEqual(verdicts(await runChecks({ dataDir: copy, all: true, record: false })));
  }, 60_000);

  it('an order status the club file does not group fails check, named with its count', async () => {
    const clubDir = mkdtempSync(join(tmpdir(), 'fanlake-club-'));
    writeFileSync(join(clubDir, 'order_status_groups.csv'), 'order_status_id,order_status_name,status_group\n1,Completed,paid\n2,Cancelled,cancelled\n');
    const { failing } = await checksWithBrokenModel('marts/revenue_monthly.sql', 'with', 'with', clubDir);
    const statuses = failing.find((result) => result.name === 'tests/order_statuses_mapped');
    expect(statuses?.severity).toBe('error');
    expect(statuses?.sample).toEqual(expect.arrayContaining([
      expect.objectContaining({ source: 'tickets', code_id: '3', code_name: 'Refunded', state: 'unmapped' }),
      expect.objectContaining({ source: 'merchandise', code_id: '3', code_name: 'Refunded', state: 'unmapped' }),
    ]));
    // Refunded orders are not dropped: they count as other, and the books still balance.
    expect(failing.filter((result) => result.name.startsWith('tests/books_'))).toEqual([]);
  }, 60_000);
});
