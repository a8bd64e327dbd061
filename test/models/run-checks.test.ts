import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildModels } from '../../src/models/build-models.js';
import { checksFailed, runChecks } from '../../src/models/checks/run-checks.js';
import type { TestResult } from '../../src/models/checks/run-checks.js';
import { join } from 'node:path';
import { withConnection } from '../../src/core/duckdb.js';
import { ensureMetaSchema } from '../../src/warehouse/meta-schema.js';
import { CHECKED_PROJECT, seedRaw, workspace } from './fixtures.js';
import type { Workspace } from './fixtures.js';

let ws: Workspace;

const NOW = new Date('2024-05-03T12:00:00Z');
const hoursBefore = (hours: number) => new Date(NOW.getTime() - hours * 3_600_000).toISOString();

function byName(results: TestResult[], name: string): TestResult {
  const result = results.find((candidate) => candidate.name === name);
  if (!result) throw new Error(`no result ${name}; have ${results.map((r) => r.name).join(', ')}`);
  return result;
}

beforeEach(async () => {
  ws = await workspace();
  await ws.write(CHECKED_PROJECT);
});

afterEach(async () => {
  await ws.cleanup();
});

describe('runChecks', () => {
  it('passes a clean warehouse, sources first, then models by layer, then custom tests', async () => {
    await seedRaw(ws, hoursBefore(6));
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });

    const results = await runChecks({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, now: NOW });

    expect(results.map((r) => [r.name, r.severity, r.status, r.failures])).toEqual([
      ['raw.ticketing_users: unique(id)', 'error', 'pass', 0],
      ['raw.ticketing_users: not_null(email)', 'warn', 'pass', 0],
      ['raw.ticketing_users: freshness(_extracted_at)', 'error', 'pass', 0],
      ['raw.ticketing_tickets: not_null(id, id_user)', 'error', 'pass', 0],
      ['marts.dim_fan: unique(fan_id)', 'error', 'pass', 0],
      ['marts.dim_fan: not_null(fan_id)', 'error', 'pass', 0],
      ['marts.fct_tickets: relationships(fan_id -> marts.dim_fan.fan_id)', 'error', 'pass', 0],
      ['marts.fct_tickets: accepted_values(status)', 'error', 'pass', 0],
      ['marts.fct_tickets: unique(ticket_id)', 'warn', 'pass', 0],
      ['tests/no_negative_prices', 'error', 'pass', 0],
    ]);
    expect(byName(results, 'raw.ticketing_users: freshness(_extracted_at)').message).toBe('latest _extracted_at is 6.0 h old (warn after 24 h, error after 48 h)');
    expect(checksFailed(results)).toBe(false);
  });

  it('reports each failing test with its count and a sample of failing rows', async () => {
    await seedRaw(ws, hoursBefore(6));
    await ws.exec(`
        insert into raw.ticketing_users values (1, null, '${hoursBefore(6)}'), (3, null, '${hoursBefore(6)}');
        insert into raw.ticketing_tickets values (12, 99, 'paid', 5.0), (13, 1, 'lost', -1.0), (13, 2, 'lost', 4.0), (14, null, 'paid', 1.0);
    `);
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });

    const results = await runChecks({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, now: NOW });

    expect(byName(results, 'raw.ticketing_users: unique(id)')).toMatchObject({ status: 'fail', failures: 1, sample: [{ id: 1, n_records: '2' }] });
    expect(byName(results, 'raw.ticketing_users: not_null(email)')).toMatchObject({ severity: 'warn', status: 'fail', failures: 2 });
    expect(byName(results, 'raw.ticketing_tickets: not_null(id, id_user)')).toMatchObject({ status: 'fail', failures: 1, sample: [{ id: 14, id_user: null }] });
    expect(byName(results, 'marts.fct_tickets: relationships(fan_id -> marts.dim_fan.fan_id)')).toMatchObject({
      status: 'fail',
      failures: 1,
      sample: [{ ticket_id: 12, fan_id: 99, status: 'paid' }],
    });
    expect(byName(results, 'marts.fct_tickets: accepted_values(status)')).toMatchObject({ status: 'fail', failures: 1, sample: [{ status: 'lost', n_records: '2' }] });
    expect(byName(results, 'marts.fct_tickets: unique(ticket_id)')).toMatchObject({ severity: 'warn', status: 'fail', failures: 1 });
    expect(byName(results, 'tests/no_negative_prices')).toMatchObject({ status: 'fail', failures: 1, sample: [{ ticket_id: 13 }] });
    expect(byName(results, 'marts.dim_fan: unique(fan_id)').status).toBe('pass');
    expect(checksFailed(results)).toBe(true);
  });

  it('keeps at most sampleSize failing rows but counts them all', async () => {
    await seedRaw(ws, hoursBefore(6));
    await ws.exec(`insert into raw.ticketing_tickets select 100 + range, null, 'paid', 1.0 from range(12)`);

    const results = await runChecks({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, now: NOW, sampleSize: 3 });

    expect(byName(results, 'raw.ticketing_tickets: not_null(id, id_user)')).toMatchObject({ failures: 12 });
    expect(byName(results, 'raw.ticketing_tickets: not_null(id, id_user)').sample).toHaveLength(3);
  });

  it('judges freshness against the warn and error thresholds', async () => {
    const freshness = async (hoursOld: number | undefined) => {
      if (hoursOld === undefined) await ws.exec('delete from raw.ticketing_users');
      else await seedRaw(ws, hoursBefore(hoursOld));
      const results = await runChecks({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, now: NOW });
      return byName(results, 'raw.ticketing_users: freshness(_extracted_at)');
    };

    expect(await freshness(30)).toMatchObject({ status: 'fail', severity: 'warn', sample: [{ age_hours: 30 }] });
    expect(await freshness(50)).toMatchObject({ status: 'fail', severity: 'error', message: 'latest _extracted_at is 50.0 h old (warn after 24 h, error after 48 h)' });
    expect(await freshness(undefined)).toMatchObject({ status: 'fail', severity: 'error', message: 'no _extracted_at values in raw.ticketing_users (warn after 24 h, error after 48 h)' });
  });

  it('measures a raw table\'s freshness by its last read from the source, not its newest record', async () => {
    // Extracted every hour, records unchanged for 80 h: the ledger's newest run of the resource decides.
    await seedRaw(ws, hoursBefore(80));
    const stale = byName(await runChecks({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, now: NOW }), 'raw.ticketing_users: freshness(_extracted_at)');
    expect(stale).toMatchObject({ status: 'fail', severity: 'error' });
    // r2 read users in full and found nothing new; r3 left a window unread (partial); r4 is another table.
    const run = (id: string, resource: string, hours: number, status: string) => ({ id, resource, at: hoursBefore(hours), status });
    const runs = [run('r1', 'users', 80, 'ok'), run('r2', 'users', 2, 'ok'), run('r3', 'users', 1, 'partial'), run('r4', 'tickets', 0.5, 'ok')];
    await withConnection(join(ws.dataDir, 'warehouse.duckdb'), ensureMetaSchema);
    await ws.exec(runs.map((r) => `
        insert into meta.load_ledger values ('ticketing', '${r.resource}', '${r.id}', '${r.at}', '${r.at}', 0, false, '[]');
        insert into meta.extraction_runs (run_id, started_at, finished_at, source, resource, status, rows, quarantined, requests, retries, seconds, messages, recorded_at)
            values ('${r.id}', '${r.at}', '${r.at}', 'ticketing', '${r.resource}', '${r.status}', 0, 0, 1, 0, 1, '[]', '${r.at}');`).join('\n'));

    const fresh = byName(await runChecks({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, now: NOW }), 'raw.ticketing_users: freshness(_extracted_at)');

    expect(fresh).toMatchObject({ status: 'pass', message: 'last read from the source 2.0 h ago, latest _extracted_at is 80.0 h old (warn after 24 h, error after 48 h)' });
    expect(fresh.freshness).toMatchObject({ latestAt: hoursBefore(2), ageHours: 2 });
  });

  it('marks a test that cannot run as an error, and only error-level ones fail the check', async () => {
    await seedRaw(ws, hoursBefore(6));
    await ws.exec('drop table raw.ticketing_tickets');
    // The models were never built and a source never loaded: their tests cannot run.
    const results = await runChecks({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, now: NOW });
    expect(byName(results, 'raw.ticketing_tickets: not_null(id, id_user)')).toMatchObject({ status: 'error', message: 'raw.ticketing_tickets is not in the warehouse: extract and load it first' });

    const broken = byName(results, 'marts.dim_fan: unique(fan_id)');
    expect(broken).toMatchObject({ status: 'error', failures: 0 });
    expect(broken.error?.code).toBe('E_TEST_BROKEN');
    expect(broken.message).toBe('marts.dim_fan is not in the warehouse: its build failed or has not run (fanlake build)');
    // A custom test names the table its SQL reads, not DuckDB's error quoting the SQL.
    expect(byName(results, 'tests/no_negative_prices').message).toBe('marts.fct_tickets is not in the warehouse: its build failed or has not run (fanlake build)');
    expect(checksFailed(results)).toBe(true);
    expect(checksFailed(results.filter((r) => r.severity === 'warn'))).toBe(false);
  });

  it('refuses to run without a warehouse', async () => {
    await expect(runChecks({ dataDir: ws.dataDir, modelsDir: ws.modelsDir })).rejects.toMatchObject({ code: 'E_WAREHOUSE_MISSING' });
  });

  it('reports a malformed sources.json with the path of the problem', async () => {
    await ws.write({ 'sources.json': JSON.stringify({ 'ticketing_users': {}, 'raw.x': { freshness: { field: 'at' } } }) });
    await expect(runChecks({ dataDir: ws.dataDir, modelsDir: ws.modelsDir })).rejects.toMatchObject({
      code: 'E_MODEL_PROJECT',
      problems: [
        'sql/sources.json: raw.x.freshness: give warn_after_hours, error_after_hours or both',
        'sql/sources.json: ticketing_users: keys are raw relations such as "raw.ticketing_tickets"',
      ],
    });

    await ws.write({ 'sources.json': JSON.stringify({ 'raw.x': { tests: ['unique()', 'accepted_values(status)', 'relationships(a -> b.c)'] } }) });
    await expect(runChecks({ dataDir: ws.dataDir, modelsDir: ws.modelsDir })).rejects.toMatchObject({
      problems: [
        'sql/sources.json: raw.x: unique() needs at least one column',
        'sql/sources.json: raw.x: accepted_values needs "column: value, value", got "status"',
        'sql/sources.json: raw.x: relationships target must be schema.table.column, got "b.c"',
      ],
    });
  });
});

describe('runChecks of what changed', () => {
  const ran = (results: TestResult[]) => results.filter((r) => !r.carriedFrom && r.status !== 'skipped').map((r) => r.name);

  it('runs only the tests whose tables changed since the last check, carrying the others\' results, and every test with all', async () => {
    await seedRaw(ws, hoursBefore(6));
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    const first = await runChecks({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, now: NOW });
    expect(first.filter((r) => r.carriedFrom)).toEqual([]);
    const [{ check_run_id: firstRun }] = await ws.query(`select distinct check_run_id from meta.check_results`);

    // Nothing changed: only the freshness test, which depends on the clock, runs again.
    const second = await runChecks({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, now: NOW });
    expect(ran(second)).toEqual(['raw.ticketing_users: freshness(_extracted_at)']);
    expect(byName(second, 'marts.dim_fan: unique(fan_id)')).toMatchObject({ status: 'pass', carriedFrom: { checkRunId: firstRun } });

    // A load that only saw the users again (new lineage, same values) changes nothing a test judges.
    await ws.exec(`update raw.ticketing_users set _extracted_at = '${hoursBefore(1)}'`);
    expect(ran(await runChecks({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, now: NOW }))).toEqual(['raw.ticketing_users: freshness(_extracted_at)']);

    // A ticket with a negative price: the tickets' tests run, the users' are carried. (The
    // fans are a view, whose state is its fingerprint: the users' new lineage moved it.)
    await ws.exec(`insert into raw.ticketing_tickets values (12, 1, 'paid', -5.0)`);
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    const third = await runChecks({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, now: NOW });
    expect(ran(third)).toEqual([
      'raw.ticketing_users: freshness(_extracted_at)',
      'raw.ticketing_tickets: not_null(id, id_user)',
      'marts.dim_fan: unique(fan_id)',
      'marts.dim_fan: not_null(fan_id)',
      'marts.fct_tickets: relationships(fan_id -> marts.dim_fan.fan_id)',
      'marts.fct_tickets: accepted_values(status)',
      'marts.fct_tickets: unique(ticket_id)',
      'tests/no_negative_prices',
    ]);
    expect(byName(third, 'tests/no_negative_prices')).toMatchObject({ status: 'fail', failures: 1 });
    // A carried failure stays a failure.
    const fourth = await runChecks({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, now: NOW });
    expect(byName(fourth, 'tests/no_negative_prices')).toMatchObject({ status: 'fail', failures: 1, sample: [{ ticket_id: 12 }], carriedFrom: expect.any(Object) });
    expect(checksFailed(fourth)).toBe(true);

    const all = await runChecks({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, now: NOW, all: true });
    expect(all.filter((r) => r.carriedFrom)).toEqual([]);
    const recorded = await ws.query(`select count(*) filter (where carried_from is not null) as carried, count(*) as n from meta.check_results`);
    expect(recorded).toEqual([{ carried: String(9 + 9 + 2 + 9), n: String(10 * 6) }]);
  });

  it('runs a test whose definition changed', async () => {
    await seedRaw(ws, hoursBefore(6));
    await buildModels({ dataDir: ws.dataDir, modelsDir: ws.modelsDir });
    await runChecks({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, now: NOW });
    await ws.write({ 'tests/no_negative_prices.sql': 'select ticket_id, price from marts.fct_tickets where price <= 0;\n' });
    const again = await runChecks({ dataDir: ws.dataDir, modelsDir: ws.modelsDir, now: NOW });
    expect(ran(again)).toEqual(['raw.ticketing_users: freshness(_extracted_at)', 'tests/no_negative_prices']);
  });
});
