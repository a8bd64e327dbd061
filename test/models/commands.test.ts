import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createBuildCommand } from '../../src/cli/commands/build.js';
import { createCheckCommand } from '../../src/cli/commands/check.js';
import type { LoadedConfig } from '../../src/config/load-config.js';
import { exitCodeFor } from '../../src/core/errors.js';
import { type RunSummary, runSummarySchema } from '../../src/pipeline/run-summary.js';
import { CHECKED_PROJECT, seedRaw, workspace } from './fixtures.js';
import type { Workspace } from './fixtures.js';

let ws: Workspace;
let stdout: string[];
let stderr: string[];

const NOW = new Date('2024-05-03T12:00:00Z');

beforeEach(async () => {
  ws = await workspace();
  await ws.write(CHECKED_PROJECT);
  stdout = [];
  stderr = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (stdout.push(String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (stderr.push(String(chunk)), true));
});

afterEach(async () => {
  vi.restoreAllMocks();
  await ws.cleanup();
});

/** The run summary a command printed with `--format json`, read back through its schema. */
function printedSummary(): RunSummary {
  const summary = runSummarySchema.parse(JSON.parse(stdout.join('')));
  stdout = [];
  return summary;
}

function config(): LoadedConfig {
  return { config: { dataDir: ws.dataDir, 'models.phoneDefaultCountryCode': '+47' }, origins: {} } as unknown as LoadedConfig;
}

describe('build and check commands', () => {
  const build = () => createBuildCommand({ modelsDir: ws.modelsDir });
  const check = () => createCheckCommand({ modelsDir: ws.modelsDir, now: () => NOW });

  it('exit 0 when everything builds and passes, with each model and test in the JSON summary', async () => {
    await seedRaw(ws, '2024-05-03T10:00:00Z');

    expect(await build().run({ 'full-refresh': false, format: 'json' }, config())).toBe(0);
    const built = printedSummary().steps[0]!;
    expect(built.results).toContainEqual({ name: 'marts.fct_tickets', status: 'ok', counts: { rows: 2 }, seconds: expect.any(Number) });
    expect(built.errors).toEqual([]);
    expect(await check().run({ format: 'json' }, config())).toBe(0);
    const checked = printedSummary().steps[0]!;
    expect(checked.results).toContainEqual({ name: 'marts.dim_fan: unique(fan_id)', status: 'pass', severity: 'error', counts: { failures: 0 } });
  });

  it('exit 1 when a model fails or an error-level test fails; warnings alone pass', async () => {
    await seedRaw(ws, '2024-05-03T10:00:00Z');
    await ws.exec(`insert into raw.ticketing_tickets values (11, 2, 'paid', 1.0)`);

    expect(await build().run({ 'full-refresh': false }, config())).toBe(0);
    // Only the warn-level unique(ticket_id) fails.
    expect(await check().run({}, config())).toBe(0);
    expect(stdout.join('')).toContain('failing: marts.fct_tickets: unique(ticket_id)');
    expect(stderr.join('')).toContain('9 passed, 0 failed, 1 warned');

    await ws.exec(`insert into raw.ticketing_tickets values (12, 2, 'lost', 1.0)`);
    expect(await build().run({ 'full-refresh': false }, config())).toBe(0);
    stdout = [];
    expect(await check().run({ format: 'json' }, config())).toBe(1);
    const checked = printedSummary().steps[0]!;
    // Failing error-level tests are errors of the step, naming the test; the warning is a note.
    expect(checked.errors.length).toBeGreaterThan(0);
    expect(checked.errors.every((error) => error.code === 'E_TEST_FAILED' && !error.retryable && typeof error.context.test === 'string')).toBe(true);
    expect(checked.notes).toContainEqual(expect.stringMatching(/^warning: marts\.fct_tickets: unique\(ticket_id\)/));

    await ws.write({ 'marts/dim_fan.sql': 'select no_such_column as fan_id from staging.stg_ticketing__users' });
    expect(await build().run({ 'full-refresh': false, format: 'json' }, config())).toBe(1);
    const failed = printedSummary().steps[0]!;
    expect(failed.errors).toEqual([
      { code: 'E_MODEL_FAILED', message: expect.stringContaining('Binder Error'), retryable: false, context: { model: 'marts.dim_fan' } },
    ]);
    expect(failed.counts).toEqual({ built: 0, unchanged: 2, failed: 1, skipped: 0 });
    // The same build in words.
    expect(await build().run({ 'full-refresh': false }, config())).toBe(1);
    expect(stderr.join('')).toContain('error: marts.dim_fan: Binder Error');
    // Only dim_fan changed; its parents' SQL and data did not, so they were left as they were.
    expect(stderr.join('')).toContain('0 built, 2 unchanged, 1 failed, 0 skipped');
  });

  it('usage errors (exit 2) for an unknown --select name; project errors exit 1', async () => {
    await seedRaw(ws, '2024-05-03T10:00:00Z');

    const unknown = await build().run({ select: ['dim_fans'], 'full-refresh': false }, config()).catch((error: unknown) => error);
    expect(unknown).toMatchObject({ name: 'UsageError', message: expect.stringContaining('did you mean dim_fan') });
    expect(exitCodeFor(unknown)).toBe(2);

    await ws.write({ 'marts/loop_a.sql': 'select * from marts.loop_b', 'marts/loop_b.sql': 'select * from marts.loop_a' });
    const cycle = await build().run({ 'full-refresh': false }, config()).catch((error: unknown) => error);
    expect(cycle).toMatchObject({ code: 'E_MODEL_PROJECT' });
    expect(exitCodeFor(cycle)).toBe(1);
  });
});
