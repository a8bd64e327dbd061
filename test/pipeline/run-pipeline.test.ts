import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { runPipeline } from '../../src/pipeline/run-pipeline.js';
import { CHECKED_PROJECT, seedRaw, workspace, type Workspace } from '../models/fixtures.js';

let ws: Workspace;
beforeEach(async () => {
  ws = await workspace();
  await ws.write(CHECKED_PROJECT);
  await seedRaw(ws, new Date().toISOString());
  // An error-level test fails: accepted_values(status) on fct_tickets.
  await ws.exec(`insert into raw.ticketing_tickets values (12, 2, 'lost', 1.0)`);
});
afterEach(() => ws.cleanup());

/** The real configuration loader, with a one-query report over the fixture's marts. */
function config() {
  const definitions = mkdtempSync(join(tmpdir(), 'fanlake-defs-'));
  writeFileSync(join(definitions, 'fans.md'), '---\ntitle: Fans\npersonalData: false\n---\n\n```sql fans\nselect count(*) as n from marts.dim_fan\n```\n\n```figures\nquery: fans\nitems:\n  - { field: n, label: Fans, format: integer }\n```\n');
  return loadConfig({ env: { FANLAKE_DATA_DIR: ws.dataDir, FANLAKE_REPORT_DEFINITIONS: definitions }, cwd: ws.root }).config;
}

describe('runPipeline', () => {
  it('failed error-level checks do not stop the reports by default; the run still fails', async () => {
    const { summary, reports } = await runPipeline({ config: config(), modelsDir: ws.modelsDir, steps: ['build', 'check', 'report'] });
    expect(summary.steps.map((s) => [s.step, s.status])).toEqual([
      ['build', 'ok'],
      ['check', 'failed'],
      ['report', 'ok'],
    ]);
    expect(summary.steps[1]!.error).toContain('accepted_values');
    expect(reports.map((r) => [r.name, r.status])).toEqual([['fans', 'ok']]);
    expect(summary.status).toBe('failed');
  });

  it('--strict: failed checks skip the reports', async () => {
    const { summary, reports } = await runPipeline({ config: config(), modelsDir: ws.modelsDir, steps: ['build', 'check', 'report'], strict: true });
    expect(summary.steps.map((s) => [s.step, s.status, s.reason])).toEqual([
      ['build', 'ok', undefined],
      ['check', 'failed', undefined],
      ['report', 'skipped', 'check failed'],
    ]);
    expect(reports).toEqual([]);
  });

  it('a stop requested during a step lets it finish and skips the rest as stopped', async () => {
    const stop = new AbortController();
    const { summary } = await runPipeline({
      config: config(),
      modelsDir: ws.modelsDir,
      steps: ['build', 'check', 'report'],
      stop: stop.signal,
      onStep: () => stop.abort(),
    });
    expect(summary.steps.map((s) => [s.step, s.status, s.reason])).toEqual([
      ['build', 'ok', undefined],
      ['check', 'skipped', 'stopped'],
      ['report', 'skipped', 'stopped'],
    ]);
  });
});
