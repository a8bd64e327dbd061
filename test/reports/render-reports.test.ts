import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import chromium from '@sparticuz/chromium';
import { type Browser, chromium as playwright } from 'playwright-core';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, runCli, tempDataDir } from '../helpers/cli.js';
import { queryWarehouse } from '../helpers/warehouse.js';
import { buildReportWarehouse, HOSTILE_CHANNEL, HOSTILE_MATCH_ID, HOSTILE_TEAM } from './report-fixture.js';
import type { ReportWarehouse } from './report-fixture.js';

type Row = Record<string, any>;

let fixture: ReportWarehouse;

beforeAll(async () => {
  fixture = await buildReportWarehouse();
}, 180_000);

afterAll(async () => {
  await fixture?.sim.close();
});

/** Renders into a fresh output folder; returns the CLI result and the folder. */
async function render(args: string[], env: Record<string, string> = {}) {
  const out = mkdtempSync(join(tmpdir(), 'fanlake-reports-'));
  const result = await runCli(['report', '--out', out, ...args], { ...fixture.env, ...env });
  return { ...result, out };
}

let everyReport: ReturnType<typeof render> | undefined;

/**
 * Every shipped report rendered once for the fixture's season, shared by the tests that only
 * read what it wrote (rendering all nine is the slow part of this file).
 */
function renderEveryReport(): ReturnType<typeof render> {
  everyReport ??= render(['--param', `season=${fixture.season}`]);
  return everyReport;
}

function page(out: string, name: string): string {
  return readFileSync(join(out, name, 'latest', 'index.html'), 'utf8');
}

/** Rows of a data file, read by DuckDB (Parquet with its types, CSV as text). */
async function readFileRows(path: string): Promise<Row[]> {
  const instance = await DuckDBInstance.create(':memory:');
  try {
    const connection = await instance.connect();
    const reader = path.endsWith('.csv')
      ? await connection.runAndReadAll(`select * from read_csv('${path}', header = true, all_varchar = true)`)
      : await connection.runAndReadAll(`select * from read_parquet('${path}')`);
    return reader.getRowObjectsJson() as Row[];
  } finally {
    instance.closeSync();
  }
}

/** Text of every cell of one section's table body, row by row. */
function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function tableCells(html: string, sectionId: string): string[][] {
  const section = new RegExp(`<section class="table" id="${sectionId}">([\\s\\S]*?)</section>`).exec(html)?.[1] ?? '';
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(section)?.[1] ?? '';
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) => [...row[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((cell) => cell[1]!));
}

function definitions(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'fanlake-report-defs-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** Every report shipped in reports/, as README's Reports section lists them. */
const SHIPPED_REPORTS = ['audience-consent', 'campaigns', 'data-quality', 'identity-model', 'match-day', 'membership', 'retention', 'revenue', 'season-tickets', 'top-fans'];

/** The digest's line for one figure, as the report locale (nb-NO) formats a whole number. */
const countLine = (label: string, value: number) => `- ${label}: ${new Intl.NumberFormat('nb-NO').format(value)}\n`;

const TABLE_REPORT = (query: string, extra = '') => `---
title: Test report
${extra}---

\`\`\`sql rows
${query}
\`\`\`

\`\`\`table
query: rows
title: Rows
\`\`\`
`;

describe('fanlake report on a built warehouse', () => {
  it('renders every shipped report with its files, latest links and the index', async () => {
    expect(readdirSync(join(REPO, 'reports')).filter((file) => file.endsWith('.md')).map((file) => file.slice(0, -3)).sort()).toEqual(SHIPPED_REPORTS);
    const { code, stdout, stderr, out } = await renderEveryReport();
    expect(code, stderr).toBe(0);
    const index = readFileSync(join(out, 'index.html'), 'utf8');
    for (const name of SHIPPED_REPORTS) {
      expect(stdout).toContain(`ok      ${name}`);
      const latest = join(out, name, 'latest');
      // beside the renderings, the charts the newest one drew (src/reports/drawn-charts.ts)
      const folders = readdirSync(join(out, name)).filter((entry) => entry !== 'latest' && entry !== '.charts');
      expect(folders).toHaveLength(1);
      expect(realpathSync(latest)).toBe(realpathSync(join(out, name, folders[0]!)));
      for (const file of ['index.html', 'summary.md', 'rendering.json']) expect(existsSync(join(latest, file)), `${name}/${file}`).toBe(true);
      expect(index).toContain(`href="${name}/latest/index.html"`);
      const html = page(out, name);
      // Built from a warehouse with data: something to show, every chart drawn, no failed section.
      expect(html, name).not.toContain('id="no-data"');
      expect(html, name).toContain('<svg');
      // Every mart they read is built, but the opt-in loyalty source is not loaded here.
      const unavailable = [...html.matchAll(/Not available: ([^<]*)/g)].map((match) => match[1]);
      expect(unavailable, name).toEqual(name === 'top-fans' ? [expect.stringContaining('marts.fan_loyalty is not built')] : []);
      // Each has a digest of headline figures with values.
      expect(readFileSync(join(latest, 'summary.md'), 'utf8'), name).toMatch(/^- .+: .*\d/m);
    }
    for (const query of ['season_totals', 'matches', 'channels', 'sales_curve']) {
      expect(existsSync(join(out, 'match-day', 'latest', `${query}.csv`))).toBe(true);
      expect(existsSync(join(out, 'match-day', 'latest', `${query}.parquet`))).toBe(true);
    }
    // The newest extraction's run id, as the warehouse's run records give it.
    const [newest] = await queryWarehouse(fixture.dataDir, `select max(run_id) as run_id from meta.extraction_runs`);
    expect(index).toContain(newest!.run_id);
    expect(page(out, 'match-day')).toContain(`(run ${newest!.run_id})`);
  });

  it('renders the same pages and data files one report at a time as two at a time', async () => {
    const { out } = await renderEveryReport();
    const single = await render(['--param', `season=${fixture.season}`], { FANLAKE_THREADS: '1' });
    expect(single.code, single.stderr).toBe(0);
    // the rendering's time and folder are its own
    const timeless = (text: string) => text.replace(/\d{8}T\d{6}\.\d{3}Z/g, '<folder>').replace(/Rendered [^<\n]*/g, 'Rendered <time>');
    for (const name of SHIPPED_REPORTS) {
      const files = readdirSync(join(out, name, 'latest')).filter((file) => !file.endsWith('.parquet') && file !== 'rendering.json');
      expect(readdirSync(join(single.out, name, 'latest')).filter((file) => files.includes(file))).toEqual(files);
      for (const file of files) {
        expect(timeless(readFileSync(join(single.out, name, 'latest', file), 'utf8')), `${name}/${file}`).toBe(timeless(readFileSync(join(out, name, 'latest', file), 'utf8')));
      }
    }
  });

  it('defaults the season to the season of the latest match that has kicked off', async () => {
    const [current] = await queryWarehouse(
      fixture.dataDir,
      `select season from marts.dim_match where not is_season_ticket_sale and kickoff_at <= now() order by kickoff_at desc limit 1`,
    );
    const { code, stderr, out } = await render(['match-day']);
    expect(code, stderr).toBe(0);
    expect(page(out, 'match-day')).toContain(`season: <strong>${current!.season}</strong>`);
  });

  it('writes CSV and Parquet files holding exactly the rows of the page and of the marts', async () => {
    // match-day for the fixture's season, as every report was rendered
    const { code, stderr, out } = await renderEveryReport();
    expect(code, stderr).toBe(0);
    const dir = join(out, 'match-day', 'latest');
    const expected = await queryWarehouse(
      fixture.dataDir,
      `select match_id::varchar as match_id, tickets_sold::varchar as tickets_sold, ticket_revenue::double as ticket_revenue
       from marts.match_summary where season = '${fixture.season}' and not is_season_ticket_sale order by kickoff_at, match_id`,
    );
    expect(expected.length).toBeGreaterThan(1);
    const csv = await readFileRows(join(dir, 'matches.csv'));
    const parquet = await readFileRows(join(dir, 'matches.parquet'));
    expect(csv.map((row) => [row.match_id, row.tickets_sold])).toEqual(expected.map((row) => [row.match_id, row.tickets_sold]));
    expect(parquet.map((row) => [String(row.match_id), String(row.tickets_sold), Number(row.ticket_revenue)])).toEqual(
      expected.map((row) => [row.match_id, row.tickets_sold, Number(row.ticket_revenue)]),
    );
    const cells = tableCells(readFileSync(join(dir, 'index.html'), 'utf8'), 'table1');
    expect(cells).toHaveLength(expected.length);
    // Column 4 is "Sold", formatted for nb-NO (no grouping below 10 000).
    expect(cells.map((row) => row[3])).toEqual(expected.map((row) => row.tickets_sold));

    const channels = await readFileRows(join(dir, 'channels.parquet'));
    const channelTruth = await queryWarehouse(
      fixture.dataDir,
      // in the club's one name for each channel (sales_channels.csv), its spelling where it has none
      `select coalesce(channels.channel_name, order_channel, 'unknown') as channel, count(*)::integer as n from marts.fct_tickets join marts.dim_match using (match_id)
       left join marts.dim_sales_channel as channels on channels.resource = 'tickets' and channels.channel = fct_tickets.order_channel
       where is_sold and season = '${fixture.season}' and not is_season_ticket_sale group by all order by channel`,
    );
    expect(channels.map((row) => [row.channel, Number(row.tickets_sold)]).sort()).toEqual(channelTruth.map((row) => [row.channel, row.n]).sort());
  });

  it('escapes strings from the APIs in HTML and in SVG', async () => {
    const { code, stderr, out } = await renderEveryReport();
    expect(code, stderr).toBe(0);
    const html = page(out, 'match-day');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    const svgs = [...html.matchAll(/<svg[\s\S]*?<\/svg>/g)].map((match) => match[0]);
    expect(svgs.length).toBe(2);
    // The channel chart draws the hostile channel as an axis label: escaped text inside the SVG.
    expect(svgs.some((svg) => svg.includes('&lt;img src=x onerror=alert(2)&gt;'))).toBe(true);
    for (const file of [html, page(out, 'data-quality'), readFileSync(join(out, 'index.html'), 'utf8')]) {
      expect(file).not.toContain(HOSTILE_TEAM);
      expect(file).not.toContain(HOSTILE_CHANNEL);
      expect(file).not.toMatch(/<script|<img|onerror=alert\(2\)>|javascript:/i);
    }
    const csv = await readFileRows(join(out, 'match-day', 'latest', 'matches.csv'));
    expect(csv.find((row) => row.match_id === String(HOSTILE_MATCH_ID))?.fixture).toContain(HOSTILE_TEAM);
  });

  it('binds a hostile parameter value as a value: nothing matches, nothing runs, the page shows it as text', async () => {
    const before = await queryWarehouse(fixture.dataDir, 'select count(*)::integer as n from marts.match_summary');
    const hostile = `' or 1=1; drop table marts.match_summary; --<script>`;
    const { code, stderr, out } = await render(['match-day', '--param', `season=${hostile}`]);
    expect(code, stderr).toBe(0);
    const html = page(out, 'match-day');
    expect(html).toContain('id="no-data"');
    expect(html).toContain('&#39; or 1=1; drop table marts.match_summary; --&lt;script&gt;');
    expect(html).not.toContain('<script');
    expect(await readFileRows(join(out, 'match-day', 'latest', 'matches.parquet'))).toEqual([]);
    expect(await queryWarehouse(fixture.dataDir, 'select count(*)::integer as n from marts.match_summary')).toEqual(before);
  });

  it('refuses a parameter the report does not declare, and an unknown report', async () => {
    const undeclared = await render(['data-quality', '--param', 'season=2025']);
    expect(undeclared.code).toBe(2);
    expect(undeclared.stderr).toContain('parameter season is not declared by data-quality');
    expect(readdirSync(undeclared.out)).toEqual([]);
    const unknown = await render(['no-such-report']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown report no-such-report');
  });

  it('writes a digest of headline figures, with their change from the previous rendering of the same parameters', async () => {
    const out = mkdtempSync(join(tmpdir(), 'fanlake-reports-'));
    const args = ['report', 'match-day', '--out', out, '--param', `season=${fixture.season}`];
    expect((await runCli(args, fixture.env)).code).toBe(0);
    const first = readFileSync(join(out, 'match-day', 'latest', 'summary.md'), 'utf8');
    expect(first).toContain('First rendering with these parameters');
    const [totals] = await queryWarehouse(fixture.dataDir, `select sum(tickets_sold)::integer as sold from marts.match_summary where season = '${fixture.season}' and not is_season_ticket_sale`);
    expect(first).toContain(`- Tickets sold: ${new Intl.NumberFormat('nb-NO').format(totals!.sold)}\n`);
    expect((await runCli(args, fixture.env)).code).toBe(0);
    const second = readFileSync(join(out, 'match-day', 'latest', 'summary.md'), 'utf8');
    expect(second).toContain('Change since');
    expect(second).toContain(`- Tickets sold: ${new Intl.NumberFormat('nb-NO').format(totals!.sold)} (unchanged)`);
    expect(second.trimEnd().split('\n').length).toBeLessThanOrEqual(40);
  });

  it('keeps the newest N renderings of each report', async () => {
    const out = mkdtempSync(join(tmpdir(), 'fanlake-reports-'));
    // a report of one small table: what is kept does not depend on what a rendering holds
    const env = { ...fixture.env, FANLAKE_REPORT_KEEP: '2', FANLAKE_REPORT_DEFINITIONS: definitions({ 'kept.md': TABLE_REPORT('select match_id from marts.dim_match') }) };
    const made: string[] = [];
    for (let k = 0; k < 3; k++) {
      const result = await runCli(['report', 'kept', '--out', out], env);
      expect(result.code, result.stderr).toBe(0);
      made.push(/kept {2}(\S+)\/index\.html/.exec(result.stdout)![1]!);
    }
    const kept = readdirSync(join(out, 'kept')).filter((entry) => entry !== 'latest').sort();
    expect(kept.map((folder) => join(out, 'kept', folder))).toEqual(made.slice(-2));
    expect(realpathSync(join(out, 'kept', 'latest'))).toBe(realpathSync(made.at(-1)!));
  });

  it('lists the reports with their parameters', async () => {
    const result = await runCli(['report', '--list'], fixture.env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/match-day\s+Match day/);
    expect(result.stdout).toMatch(/--param season=<text>\s+from query current_season/);
    expect(result.stdout).toMatch(/data-quality\s+Data quality/);
  });

  it('shows the data-quality run records: quarantined items with their reason, check results, identity links and the review queue', async () => {
    // data-quality declares no season: the shared rendering's is the report as rendered alone
    const { code, stderr, out } = await renderEveryReport();
    expect(code, stderr).toBe(0);
    const quarantined = await queryWarehouse(fixture.dataDir, `select source, resource, reason, item->>'id' as id from meta.quarantined_records`);
    expect(quarantined).toEqual([expect.objectContaining({ source: 'ticketing', resource: 'tickets', id: '99000002' })]);
    expect(quarantined[0]!.reason).toContain('id_event');
    const html = page(out, 'data-quality');
    // what the club's mapping does not know comes first (here the fixture's hostile channel name,
    // escaped), then every consent record accounted for
    const toMap = await queryWarehouse(fixture.dataDir, `select mapping, source, code_name, state from marts.club_codes where state <> 'mapped' order by all`);
    expect(toMap.length).toBeGreaterThan(0);
    expect(tableCells(html, 'table1').map((row) => [row[0], row[1], row[3], row[4]])).toEqual(toMap.map((row) => [row.mapping, row.source, escapeHtml(String(row.code_name)), row.state]));
    const ledger = await queryWarehouse(fixture.dataDir, 'select system, loaded from marts.consent_ledger order by system');
    expect(tableCells(html, 'table2').map((row) => [row[0], Number(row[1]!.replace(/\s/g, ''))])).toEqual(ledger.map((row) => [row.system, Number(row.loaded)]));
    const reasons = tableCells(html, 'table5');
    expect(reasons).toEqual([['ticketing.tickets', expect.stringContaining('id_event'), '1', '1', expect.any(String)]]);
    const links = await queryWarehouse(fixture.dataDir, `select match_rule, system, count(*)::integer as n from marts.fan_identity_links group by all order by all`);
    expect(tableCells(html, 'table9').map((row) => [row[0], row[1], Number(row[2]!.replace(/\s/g, ''))])).toEqual(links.map((row) => [row.match_rule, row.system, row.n]));
    const review = await queryWarehouse(fixture.dataDir, `select reason, count(*)::integer as n from marts.fan_identity_review group by all order by all`);
    expect(tableCells(html, 'table10').map((row) => [row[0], Number(row[1]!.replace(/\s/g, ''))])).toEqual(review.map((row) => [row.reason, row.n]));
    const checks = await queryWarehouse(fixture.dataDir, `select count(*)::integer as n from meta.check_results where kind = 'freshness'`);
    expect(tableCells(html, 'table6')).toHaveLength(checks[0]!.n);
  });
});

describe('the standard reports show the marts\' figures', () => {
  let out: string;
  const latest = (name: string, file: string) => join(out, name, 'latest', file);
  const rows = (name: string, query: string) => readFileRows(latest(name, `${query}.parquet`));
  const one = async (sql: string) => (await queryWarehouse(fixture.dataDir, sql))[0]!;

  beforeAll(async () => {
    const rendered = await renderEveryReport();
    expect(rendered.code, rendered.stderr).toBe(0);
    out = rendered.out;
  }, 60_000);

  it('revenue: this season\'s tickets and season tickets are the sold tickets of its matches, refunds apart', async () => {
    const [totals] = await rows('revenue', 'season_totals');
    const tickets = await one(`
      select sum(ticket_price) filter (where is_sold)::double as sold, sum(ticket_price) filter (where order_status_name = 'Refunded')::double as refunded
      from marts.fct_tickets join marts.dim_match using (match_id)
      where season = '${fixture.season}' and (is_sold or order_status_name = 'Refunded')`);
    expect(Number(totals!.ticket_revenue) + Number(totals!.season_ticket_revenue)).toBeCloseTo(tickets.sold, 2);
    expect(Number(totals!.ticket_revenue)).toBeGreaterThan(0);
    const merchandise = await one(`select coalesce(sum(order_revenue) filter (where is_completed), 0)::double as revenue from marts.fct_orders`);
    expect(Number(totals!.revenue)).toBeLessThanOrEqual(tickets.sold + merchandise.revenue + 0.005);
    expect(Number(totals!.refunded_amount)).toBeGreaterThanOrEqual(tickets.refunded ?? 0);
    const monthly = await rows('revenue', 'monthly');
    expect(monthly.reduce((sum, row) => sum + Number(row.revenue), 0)).toBeCloseTo(Number(totals!.revenue), 2);
  });

  it('season tickets: active season tickets of the season are its completed season-ticket sales', async () => {
    const [totals] = await rows('season-tickets', 'season_totals');
    const sales = await one(`
      select count(*)::integer as n from marts.fct_tickets join marts.dim_match using (match_id)
      where is_season_ticket_sale and is_sold and season = '${fixture.season}'`);
    expect(Number(totals!.season_tickets)).toBe(sales.n);
    const seasons = await one(`select count(distinct season)::integer as n from marts.dim_match`);
    expect(await rows('season-tickets', 'seasons')).toHaveLength(seasons.n);
  });

  it('membership: members near their pool limit (80 %) and members who never used it', async () => {
    const [totals] = await rows('membership', 'totals');
    const members = await one(`
      select count(*)::integer as members,
          count(*) filter (where ticket_pool_total > 0 and ticket_pool_used >= 0.8 * ticket_pool_total)::integer as near,
          count(*) filter (where ticket_pool_used = 0)::integer as never
      from staging.stg_ticketing__members`);
    expect(members.members).toBeGreaterThan(0);
    expect([Number(totals!.members), Number(totals!.members_near_limit), Number(totals!.members_never_used)]).toEqual([members.members, members.near, members.never]);
    expect(readFileSync(latest('membership', 'summary.md'), 'utf8')).toContain(countLine('Members near their pool limit', members.near));
  });

  it('audience and consent: reach per purpose and channel, grants and withdrawals per month', async () => {
    const coverage = await rows('audience-consent', 'coverage');
    // in the club's words (display_names.csv), not the mapping's codes
    const expected = await queryWarehouse(fixture.dataDir, `select purpose_name as purpose, channel_name as channel, reachable_fans::integer as reachable from marts.consent_coverage order by purpose, channel`);
    expect(coverage.some((row) => row.purpose === 'Club news and offers' && row.channel === 'E-mail')).toBe(true);
    expect(coverage.some((row) => String(row.purpose).includes('_') || row.channel === 'none')).toBe(false);
    expect(coverage.map((row) => [row.purpose, row.channel, Number(row.reachable_fans)])).toEqual(expected.map((row) => [row.purpose, row.channel, row.reachable]));
    // a headline figure per purpose and channel, named as the table names them
    const emailReach = expected.find((row) => row.purpose === 'Club news and offers' && row.channel === 'E-mail')!.reachable as number;
    expect(readFileSync(latest('audience-consent', 'summary.md'), 'utf8')).toContain(countLine('Reachable: Club news and offers by E-mail', emailReach));
    const changes = await rows('audience-consent', 'changes');
    expect(changes.some((row) => row.decision === 'grants' && Number(row.decisions) > 0)).toBe(true);
    expect(changes.some((row) => row.decision === 'withdrawals' && Number(row.decisions) > 0)).toBe(true);
  });

  it('campaigns: every campaign app with its participants', async () => {
    const campaigns = await rows('campaigns', 'campaigns');
    const apps = await one(`select count(*)::integer as n from staging.stg_engagement__campaign_apps where vanished_at is null`);
    const participants = await one(`select count(*)::integer as n from staging.stg_engagement__participants where vanished_at is null`);
    expect(campaigns).toHaveLength(apps.n);
    const [totals] = await rows('campaigns', 'totals');
    expect(Number(totals!.participants)).toBe(participants.n);
    expect(tableCells(page(out, 'campaigns'), 'table1')).toHaveLength(apps.n);
  });

  it('top fans: the fans who spent most with their linked records; names stay out of the digest', async () => {
    const fans = await rows('top-fans', 'fans');
    const spenders = await one(`select count(*)::integer as n from marts.dim_fan where ticket_spend + merchandise_spend > 0`);
    expect(fans.length).toBe(Math.min(100, spenders.n));
    const [top] = await queryWarehouse(fixture.dataDir, `select fan_id, ticket_spend + merchandise_spend as spend from marts.dim_fan order by spend desc, fan_id limit 1`);
    expect(Number(fans[0]!.total_spend)).toBeCloseTo(Number(top!.spend), 2);
    const links = await queryWarehouse(fixture.dataDir, `select system, record_id from marts.fan_identity_links where fan_id = '${fans[0]!.fan_id}' order by all`);
    expect(Number(fans[0]!.linked_record_count)).toBe(links.length);
    for (const link of links) expect(fans[0]!.linked_records).toContain(`${link.system} ${link.record_id} (`);
    const html = page(out, 'top-fans');
    const digest = readFileSync(latest('top-fans', 'summary.md'), 'utf8');
    expect(html).toContain('This report shows personal data');
    for (const fan of fans.slice(0, 10)) {
      if (fan.email) expect(html).toContain(fan.email);
      if (fan.email) expect(digest).not.toContain(fan.email);
      expect(digest).not.toContain(fan.name);
    }
    expect(digest).toContain(countLine('Top fans', fans.length));
  });

  it('retention: buyers per season, new and retained', async () => {
    const seasons = await rows('retention', 'seasons');
    const buyers = await queryWarehouse(fixture.dataDir, `
      select dim_match.season, count(distinct fct_tickets.buyer_user_id)::integer as accounts
      from marts.fct_tickets join marts.dim_match using (match_id) where is_sold group by all order by season`);
    expect(seasons.map((row) => row.season)).toEqual(buyers.map((row) => row.season));
    // A fan may hold several accounts, never the reverse.
    for (const [k, row] of seasons.entries()) expect(Number(row.buying_fans)).toBeLessThanOrEqual(buyers[k]!.accounts);
    expect(seasons.at(-1)!.retention_rate).toBeNull();
    expect(seasons.slice(0, -1).every((row) => row.retention_rate !== null)).toBe(true);
  });
});

describe('personal data', () => {
  it('stays out of the digest of a report that shows it; other reports keep their text figures', async () => {
    const report = (personalData: boolean) => `---
title: Busiest home team
personalData: ${personalData}
---

\`\`\`sql busiest
select home_team_name as team, count(*) as matches from marts.dim_match group by all order by matches desc, team limit 1
\`\`\`

\`\`\`figures
query: busiest
items:
  - { field: team, label: Team }
  - { field: matches, label: Matches, format: integer }
\`\`\`
`;
    const dir = definitions({ 'personal.md': report(true), 'public.md': report(false) });
    const { code, stderr, out } = await render([], { FANLAKE_REPORT_DEFINITIONS: dir });
    expect(code, stderr).toBe(0);
    const [busiest] = await queryWarehouse(fixture.dataDir, 'select home_team_name as team, count(*)::integer as matches from marts.dim_match group by all order by matches desc, team limit 1');
    const digest = (name: string) => readFileSync(join(out, name, 'latest', 'summary.md'), 'utf8');
    expect(digest('public')).toContain(`- Team: ${busiest!.team}\n`);
    expect(digest('personal')).not.toContain(busiest!.team);
    expect(digest('personal')).toContain(`- Matches: ${busiest!.matches}\n`);
    expect(page(out, 'personal')).toContain(`<dd>${busiest!.team}</dd>`);
  });
});

describe('what is missing renders as missing', () => {
  it('says a model is not built and why, and renders the rest', async () => {
    const dir = definitions({
      'loyalty.md': `---
title: Loyalty and matches
---

\`\`\`sql loyalty
select * from marts.fan_loyalty
\`\`\`

\`\`\`table
query: loyalty
title: Loyalty
\`\`\`

\`\`\`sql matches
select match_id, season from marts.dim_match
\`\`\`

\`\`\`table
query: matches
title: Matches
\`\`\`
`,
    });
    const { code, stderr, out } = await render([], { FANLAKE_REPORT_DEFINITIONS: dir });
    expect(code, stderr).toBe(0);
    const html = page(out, 'loyalty');
    expect(html).toContain('Not available: marts.fan_loyalty is not built (it rests on the optional source raw.engagement_loyalty_summaries, which is not loaded)');
    const [matches] = await queryWarehouse(fixture.dataDir, 'select count(*)::integer as n from marts.dim_match');
    expect(tableCells(html, 'table2')).toHaveLength(matches!.n);
  });

  it('says there is no data yet when there is no warehouse, and when nothing is built, in every shipped report', async () => {
    const empty = tempDataDir();
    const none = await runCli(['report'], { FANLAKE_DATA_DIR: empty });
    expect(none.code, none.stderr).toBe(0);
    const pageIn = (dataDir: string, name: string) => readFileSync(join(dataDir, 'reports', name, 'latest', 'index.html'), 'utf8');
    for (const name of SHIPPED_REPORTS) {
      const html = pageIn(empty, name);
      expect(html, name).toContain('id="no-data"');
      expect(html, name).toContain('Not available: no warehouse yet');
      expect(existsSync(join(empty, 'reports', name, 'latest', 'summary.md')), name).toBe(true);
    }

    const bare = tempDataDir();
    const instance = await DuckDBInstance.create(join(bare, 'warehouse.duckdb'));
    instance.closeSync();
    const unbuilt = await runCli(['report'], { FANLAKE_DATA_DIR: bare });
    expect(unbuilt.code, unbuilt.stderr).toBe(0);
    for (const name of SHIPPED_REPORTS) expect(pageIn(bare, name), name).toContain('id="no-data"');
    expect(pageIn(bare, 'match-day')).toContain('Not available: marts.match_summary is not built (its source raw.ticketing_tickets is not loaded yet)');
    expect(pageIn(bare, 'campaigns')).toContain('Not available: marts.campaign_conversion is not built');
  });
});

describe('a bad definition exits 2 before anything renders', () => {
  const cases: [string, string, string][] = [
    ['front matter that is not YAML', '---\ntitle: [unclosed\n---\n', 'bad.md: front matter: not valid YAML'],
    [
      'an unknown chart type',
      '---\ntitle: T\n---\n\n```sql rows\nselect match_id from marts.dim_match\n```\n\n```chart\nquery: rows\ntype: pie3d\ntitle: C\nalt: A\nx: { field: match_id }\ny: { field: match_id }\n```\n',
      'bad.md: chart block at line 9: unknown chart type "pie3d"',
    ],
    ['a relation outside marts and meta', TABLE_REPORT('select * from raw.ticketing_users'), 'bad.md: sql block rows at line 5: raw.ticketing_users is neither a model in sql/marts nor a meta table'],
    ['an unknown model', TABLE_REPORT('select * from marts.match_sumary'), 'marts.match_sumary is neither a model in sql/marts nor a meta table (did you mean marts.match_summary?)'],
    ['an undeclared parameter', TABLE_REPORT('select * from marts.dim_match where season = $season'), 'bad.md: sql block rows at line 5: parameter $season is not declared'],
    ['a query that is not a SELECT', TABLE_REPORT('drop table marts.dim_match'), 'bad.md: sql block rows at line 5: a query must be a single SELECT'],
  ];
  type Rendering = ReturnType<typeof render>;
  /** The files with a good definition beside them, rendered. */
  const renderFolder = (files: Record<string, string>): Rendering =>
    render([], { FANLAKE_REPORT_DEFINITIONS: definitions({ ...files, 'good.md': TABLE_REPORT('select match_id from marts.dim_match') }) });
  /** Refused with `message`, and no report of the folder rendered, not even the good one. */
  async function expectRefused(rendering: Rendering, files: Record<string, string>, message: string): Promise<void> {
    const { code, stderr, out } = await rendering;
    expect(code, stderr).toBe(2);
    expect(stderr).toContain(message);
    const names = [...Object.keys(files), 'good.md'].map((file) => file.replace(/\.md$/, ''));
    expect(readdirSync(out).filter((entry) => !names.includes(entry))).toEqual([]);
    for (const name of names) {
      expect(existsSync(join(out, name)) ? readdirSync(join(out, name)) : []).toEqual([]);
    }
  }

  // The files' own problems are all named in one error: every bad file in one folder, rendered once.
  const badFile = (index: number) => `bad${index + 1}.md`;
  const everyBadFile = Object.fromEntries(cases.map(([, text], index) => [badFile(index), text]));
  let everyBadRendering: Rendering | undefined;
  cases.forEach(([what, , message], index) => {
    it(what, () => expectRefused((everyBadRendering ??= renderFolder(everyBadFile)), everyBadFile, message.replace('bad.md', badFile(index))));
  });

  // A query's columns are the warehouse's to tell: checked once the files themselves are sound.
  it('a chart field missing from its query\'s columns', () => {
    const files = { 'bad.md': '---\ntitle: T\n---\n\n```sql rows\nselect match_id, season from marts.dim_match\n```\n\n```chart\nquery: rows\ntype: bar\ntitle: C\nalt: A\nx: { field: season }\ny: { field: tickets }\n```\n' };
    return expectRefused(renderFolder(files), files, 'bad.md: chart block at line 9: field tickets is not a column of query rows (columns: match_id, season)');
  });
});

describe('an engine error fails that report only', () => {
  it('renders the others and exits 1', async () => {
    const dir = definitions({
      'broken.md': TABLE_REPORT(`select cast(season || 'x' as integer) as n from marts.dim_match`),
      'fine.md': TABLE_REPORT('select match_id from marts.dim_match'),
    });
    const { code, stdout, stderr, out } = await render([], { FANLAKE_REPORT_DEFINITIONS: dir });
    expect(code).toBe(1);
    expect(stderr).toMatch(/failed {2}broken: .*broken\.md: query rows failed/);
    expect(stdout).toContain('ok      fine');
    expect(existsSync(join(out, 'fine', 'latest', 'index.html'))).toBe(true);
    expect(existsSync(join(out, 'broken'))).toBe(true);
    expect(readdirSync(join(out, 'broken'))).toEqual([]);
  });
});

describe('in a browser', () => {
  /** Git-ignored: a person can look at what the pages looked like in the last test run. */
  const SCREENSHOTS = join(REPO, 'test-artifacts', 'report-screenshots');
  let browser: Browser;
  let out: string;

  beforeAll(async () => {
    const rendered = await renderEveryReport();
    expect(rendered.code, rendered.stderr).toBe(0);
    out = rendered.out;
    // A configured Chromium wins; otherwise the one that ships in the @sparticuz/chromium npm package.
    const system = process.env.FANLAKE_TEST_CHROMIUM;
    browser = await playwright.launch({
      executablePath: system || (await chromium.executablePath()),
      args: system ? [] : chromium.args,
      headless: true,
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('opens the index and every report page from disk: charts drawn, no console error, no network, no script', async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const names = readdirSync(out, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
    expect(names).toEqual(SHIPPED_REPORTS);
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const requests: string[] = [];
    const problems: string[] = [];
    // Anything but the page's own file is a failure, and is never let out.
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file://')) return route.continue();
      requests.push(url);
      return route.abort();
    });
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('dialog', async (dialog) => {
      problems.push(`a script ran: ${dialog.message()}`);
      await dialog.dismiss();
    });

    const indexUrl = pathToFileURL(join(out, 'index.html')).href;
    await page.goto(indexUrl);
    await page.screenshot({ path: join(SCREENSHOTS, 'index.png'), fullPage: true });
    const anchors = await page.locator('a[href$="/latest/index.html"]').all();
    const links = await Promise.all(anchors.map(async (anchor) => new URL((await anchor.getAttribute('href'))!, indexUrl).href));
    expect(links).toHaveLength(names.length);

    for (const link of links) {
      await page.goto(link);
      const name = names.find((candidate) => link.includes(`/${candidate}/`))!;
      await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
      const charts = page.locator('section.chart figure');
      const count = await charts.count();
      expect(count, name).toBeGreaterThan(0);
      for (let k = 0; k < count; k++) {
        const chart = charts.nth(k);
        expect(await chart.locator('figcaption').innerText()).not.toBe('');
        expect(await chart.locator('[role="img"]').getAttribute('aria-label')).toMatch(/\S+: \S+/);
        const marks = await chart.locator('svg g[class*="mark-"] path, svg g[class*="mark-"] line').count();
        expect(marks, `${name} chart ${k + 1}`).toBeGreaterThan(0);
      }
      expect(await page.locator('script').count()).toBe(0);
      // The hostile away team shows as text on the page.
      if (name === 'match-day') expect(await page.getByText('<script>alert(1)</script>', { exact: false }).count()).toBeGreaterThan(0);
    }
    await context.close();
    expect(problems).toEqual([]);
    expect(requests).toEqual([]);
  });
});
