import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { compareSeason, runSeason, SHORT_SEASON } from '../../bench/season-driver.mjs';
import type { Simulator } from '../../src/simulator/simulator.js';
import { startTestSimulator } from '../helpers/simulator.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

it('a short season of hourly runs with faults, a killed receiver, a bad journal line, a crash and a retrain loses and doubles nothing', { timeout: 300_000 }, async () => {
  // Retries without waiting: the platform's pushes and the API's Retry-After.
  sim = await startTestSimulator({ retryAfterSeconds: 0, push: { retryMs: 20, maxAttempts: 4 } });
  const season = await runSeason({ simUrl: sim.url, env: sim.env, steps: SHORT_SEASON, workDir: mkdtempSync(join(tmpdir(), 'fanlake-season-')) });
  expect(season.runs.map((run) => run.ended)).toEqual(SHORT_SEASON.filter((step) => step.run !== 'none').map((step) => step.run));
  // How each run read the customer profiles, and why.
  expect(season.runs.map((run) => run.engagement)).toEqual([
    'ok (engagement.customer_profiles: full snapshot: no full snapshot yet)',
    undefined,
    // The crashed run's changes again (its load committed, the journal was not marked consumed), and this hour's.
    `ok (engagement.customer_profiles: re-read ${new Set([...season.runs[1]!.changedProfiles, ...season.runs[2]!.changedProfiles]).size} changed customer profiles (push subscription))`,
    // The API is down: not even the subscription can be read.
    expect.stringMatching(/^failed \(engagement.customer_profiles: full snapshot: the push subscription could not be read \(.* 503 /),
    // The night's snapshot, which also answers the bad journal line: the run exits 0 and says why.
    'ok (engagement.customer_profiles: full snapshot: the snapshot schedule (0 2 * * * UTC) had a slot at 2026-06-02T02:00:00.000Z; 1 unreadable line in the change journal (skipped))',
  ]);
  // The retrain after hour 5's run: `identity train` listed the records whose fan_id would move, `--apply` put it in force.
  const retrained = season.runs[2]!.retrain!;
  expect(retrained.listed.length).toBeGreaterThan(0);
  expect(retrained.trained).toContain(`${retrained.listed.length} of `);
  expect(season.retrainMoved).toEqual(retrained.listed);

  const comparison = await compareSeason(season);
  expect(comparison.raw).toEqual({});
  expect(comparison.profilesAgainstTruth).toEqual({ missing: [], extra: [] });
  expect(comparison.models).toEqual({});
  for (const figure of Object.values(comparison.figures)) expect(figure).toMatchObject({ onlySeason: 0, onlyOther: 0, season: figure.fresh });
  expect(comparison.fansAtStart).toBeGreaterThan(100);
  // No fan_id moved but those of changed or joined fans and those the applied retrain listed (some of which were there from the start).
  expect(comparison.retrainMovedAtStart).toBeGreaterThan(0);
  expect(comparison.movedFans).toEqual([]);
  // Raw runs are kept (only `schedule` prunes them); the warehouse stays near a fresh one's size.
  expect(comparison.disk.season.warehouse).toBeLessThan(3 * comparison.disk.fresh.warehouse);
});
