import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSummarySchema } from '../../src/pipeline/run-summary.js';
import type { Simulator } from '../../src/simulator/simulator.js';
import { parse } from 'yaml';
import { clockAhead, REPO, runCli, tempDataDir } from '../helpers/cli.js';
import { startTestSimulator } from '../helpers/simulator.js';
import { cliEnv } from '../warehouse/identity-fixture.js';
import { queryWarehouse } from '../helpers/warehouse.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startTestSimulator();
});
afterAll(() => sim.close());

const env = (dataDir: string) => cliEnv(sim, dataDir);

/** The report files shipped in reports/, by name, with their personal-data flag read from the front matter. */
function shippedReports(): { name: string; personalData: boolean }[] {
  const folder = join(REPO, 'reports');
  return readdirSync(folder)
    .filter((file) => file.endsWith('.md'))
    .sort()
    .map((file) => {
      const frontMatter = /^---\n([\s\S]*?)\n---/.exec(readFileSync(join(folder, file), 'utf8'))![1]!;
      return { name: file.replace(/\.md$/, ''), personalData: parse(frontMatter).personalData === true };
    });
}

describe('fanlake run', () => {
  it('extracts, loads, builds and checks in one go and prints one summary table; --format json prints it as one document of the exported schema, counts included', async () => {
    const dataDir = tempDataDir();
    // One report: that a run renders every shipped one is the second run's (in JSON).
    const result = await runCli(['run', '--report', 'match-day'], env(dataDir));

    expect(result.code, result.stderr).toBe(0);
    for (const step of ['extract', 'load', 'build', 'check', 'report']) expect(result.stdout).toMatch(new RegExp(`^${step}\\s+ok\\s`, 'm'));
    expect(result.stdout).toMatch(/^report match-day: ok .*match-day\/\d{8}T\d{6}/m);
    expect(existsSync(join(dataDir, 'reports', 'match-day', 'latest', 'index.html'))).toBe(true);
    expect(result.stderr).toMatch(/run \d{8}T\d{6}Z-[0-9a-f]{6}: ok/);
    const [tickets] = await queryWarehouse(dataDir, 'select count(*)::int as n from marts.fct_tickets');
    expect(tickets!.n).toBe([...sim.ticketingRecords('tickets')].length);

    // The next run of the same warehouse, in JSON, after some profiles changed: its counts are that run's own.
    sim.changeCustomerProfiles({ count: 4 });
    const json = await runCli(['run', '--format', 'json'], env(dataDir));
    expect(json.code, json.stderr).toBe(0);
    const summary = runSummarySchema.parse(JSON.parse(json.stdout));
    expect(summary.status).toBe('ok');
    expect(summary.steps.map((s) => s.step)).toEqual(['extract', 'load', 'build', 'check', 'report']);
    const extract = summary.steps[0]!;
    const rawRows = await queryWarehouse(dataDir, `select sum(rows)::int as n from meta.load_ledger where run_id = '${summary.runId}'`);
    expect(rawRows[0]!.n).toBeGreaterThan(0);
    expect(extract.counts.rows).toBe(rawRows[0]!.n);
    // the changed profiles' rows, each an update of one the first run loaded
    expect(summary.steps[1]!.counts).toMatchObject({ inserted: 0, updated: rawRows[0]!.n });
    const shipped = shippedReports();
    expect(summary.reports.map((r) => [r.name, r.status, r.personalData])).toEqual(shipped.map((r) => [r.name, 'ok', r.personalData]));
    expect(summary.steps[4]!.counts.rendered).toBe(shipped.length);
  });

  it('removes loaded raw runs older than raw.retentionDays after its load, never the newest, and counts them in the load step', async () => {
    const dataDir = tempDataDir();
    const runs = () => readdirSync(join(dataDir, 'raw', 'ticketing', 'members')).sort();
    const run = async (daysAhead: number) => {
      const result = await runCli(['run', '--source', 'ticketing', '--resource', 'members', '--report', 'match-day', '--format', 'json'], {
        ...env(dataDir),
        FANLAKE_RAW_RETENTION_DAYS: '1',
        ...clockAhead(daysAhead * 86_400_000),
      });
      return runSummarySchema.parse(JSON.parse(result.stdout)).steps.find((s) => s.step === 'load')!;
    };

    expect((await run(0)).counts.prunedRuns).toBe(0);
    const [first] = runs();
    // A day and more later the first run is past the retention; the second is the newest, and stays.
    const load = await run(2);
    expect(load.counts.prunedRuns).toBe(1);
    expect(load.notes).toContainEqual(expect.stringMatching(/^removed 1 raw run older than raw\.retentionDays \(\d+\.\d MB\)$/));
    expect(runs()).toHaveLength(1);
    expect(runs()).not.toContain(first);
  });

  it('a failed step skips the steps that depend on it and the run exits 1', async () => {
    const dataDir = tempDataDir();
    // Nothing listens on a closed port: every request of every resource fails.
    const result = await runCli(['run', '--format', 'json'], {
      FANLAKE_DATA_DIR: dataDir,
      FANLAKE_TICKETING_URL: 'http://127.0.0.1:9',
      FANLAKE_TICKETING_TOKEN: 'any-token',
      FANLAKE_HTTP_MAX_ATTEMPTS: '1',
    });

    expect(result.code).toBe(1);
    const summary = runSummarySchema.parse(JSON.parse(result.stdout));
    expect(summary.status).toBe('failed');
    expect(summary.steps.map((s) => [s.step, s.status, s.reason])).toEqual([
      ['extract', 'failed', undefined],
      ['load', 'skipped', 'extract failed'],
      ['build', 'skipped', 'extract failed'],
      ['check', 'skipped', 'extract failed'],
      ['report', 'skipped', 'extract failed'],
    ]);
    expect(summary.steps[0]!.error).toMatch(/^ticketing\.\w+: /);
    // Every resource failed, and each says so with an error object: the code, that a later run may succeed, and where.
    const extract = summary.steps[0]!;
    expect(extract.results.length).toBeGreaterThan(0);
    for (const failed of extract.results) {
      expect(failed.status, failed.name).toBe('failed');
      expect(extract.errors.some((error) => `${error.context.source}.${error.context.resource}` === failed.name), failed.name).toBe(true);
    }
    for (const error of extract.errors) {
      expect(error).toMatchObject({ code: 'E_HTTP_GAVE_UP', retryable: true, context: { source: 'ticketing', attempts: 1, page: expect.any(Number) } });
    }
    expect(extract.errors.find((error) => error.context.resource === 'tickets')?.context.window).toMatch(/^\d{4}-\d\d-\d\d/);
  });

  it('no command at all exits 2 with one hint, not two', async () => {
    const missing = await runCli([], env(tempDataDir()));
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe('error: Name a command (see fanlake --help)');
  });

  it('bad usage exits 2 before anything runs: an unknown resource or report', async () => {
    const dataDir = tempDataDir();
    const resource = await runCli(['run', '--resource', 'no_such_thing'], env(dataDir));
    expect(resource.code).toBe(2);
    expect(resource.stderr).toContain('unknown resource no_such_thing');

    const report = await runCli(['run', '--report', 'no-such-report'], env(dataDir));
    expect(report.code).toBe(2);
    expect(report.stderr).toContain(`unknown report no-such-report; known: ${shippedReports().map((r) => r.name).join(', ')}`);
    expect(existsSync(join(dataDir, 'raw'))).toBe(false);
  });
});
