// The long season: `--season-days` simulated days (default 7) of hourly `fanlake run`s
// against the live simulator with the push receiver, the events of bench/season-driver.mjs
// (longSeason) on each day, then the comparison with a fresh full load and a full rebuild.
// Prints runs, requests, wall and CPU per run and the disk over time; throws when the season
// lost or doubled anything.
import { rmSync } from 'node:fs';
import { compareSeason, longSeason, runSeason } from './season-driver.mjs';
import { CREDENTIALS, flag, fmt, startSimulator, tempDir } from './lib.mjs';

const DATA_TIME = '2026-06-01T00:00:00Z';

function percentile(values, share) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))];
}

const mb = (bytes) => `${fmt(bytes / 1048576, 1)} MB`;

export async function benchSeason() {
  const days = Number(flag('--season-days') ?? 7);
  const scale = Number(flag('--season-scale') ?? 0.1);
  const sim = await startSimulator(['--scale', String(scale), '--seed', '42', '--now', DATA_TIME, '--admin', '--retry-after', '0']);
  const workDir = tempDir('fanlake-bench-season-');
  try {
    const env = { ...CREDENTIALS, FANLAKE_TICKETING_URL: sim.url, FANLAKE_ENGAGEMENT_URL: sim.url };
    const started = performance.now();
    const season = await runSeason({
      simUrl: sim.url,
      env,
      steps: longSeason(days),
      workDir,
      onStep: (run) => process.stderr.write(`season ${run.at}: ${run.ended}, ${fmt(run.wallMs / 1000, 1)} s, ${run.requests} requests, ${mb(run.disk.total)}\n`),
    });
    const seasonMs = performance.now() - started;
    const comparison = await compareSeason(season);
    const { runs } = season;
    const ok = runs.filter((run) => run.ended === 'ok');
    const walls = ok.map((run) => run.wallMs / 1000);
    const cpus = ok.map((run) => run.cpuMs / 1000);
    const requests = runs.reduce((sum, run) => sum + run.requests, 0);
    const full = ok.filter((run) => run.engagement?.includes('full snapshot'));
    const targeted = ok.filter((run) => run.engagement?.includes('re-read') || run.engagement?.startsWith('skipped'));
    const perDay = Array.from({ length: days }, (_, day) => runs.filter((run) => Math.floor(run.hour / 24) === day).at(-1)?.disk);
    const lost = Object.keys(comparison.raw).length + comparison.profilesAgainstTruth.missing.length + comparison.profilesAgainstTruth.extra.length + Object.keys(comparison.models).length + comparison.movedFans.length;
    const figuresEqual = Object.values(comparison.figures).every((figure) => figure.onlySeason === 0 && figure.onlyOther === 0);
    return [
      [`season, scale ${scale}: ${days} days hourly, ${fmt(seasonMs / 60000, 1)} min`, '', '', ''],
      ['  runs: ok / failed (API down) / killed (crash point)', `${ok.length} / ${runs.filter((run) => run.ended === 'failed').length} / ${runs.filter((run) => run.ended === 'killed').length}`, '', ''],
      ['  customer profiles: full snapshots / targeted or skipped', `${full.length} / ${targeted.length}`, '', ''],
      ['  API requests, all runs / per run', `${fmt(requests)} / ${fmt(requests / runs.length)}`, `full ${fmt(full.reduce((s, r) => s + r.requests, 0) / Math.max(1, full.length))}, targeted ${fmt(targeted.reduce((s, r) => s + r.requests, 0) / Math.max(1, targeted.length))} per run`, ''],
      ['  wall per ok run, median / p90 / max', `${fmt(percentile(walls, 0.5), 1)} / ${fmt(percentile(walls, 0.9), 1)} / ${fmt(Math.max(...walls), 1)} s`, '', ''],
      ['  CPU per ok run, median / p90 / max', `${fmt(percentile(cpus, 0.5), 1)} / ${fmt(percentile(cpus, 0.9), 1)} / ${fmt(Math.max(...cpus), 1)} s`, '', ''],
      ['  disk at each day\'s end (raw, warehouse, listen)', perDay.map((disk) => (disk ? `${mb(disk.raw)}, ${mb(disk.warehouse)}, ${fmt(disk.listen / 1024)} KB` : '-')).join(' | '), '', ''],
      ['  disk of a fresh full load (raw, warehouse)', `${mb(comparison.disk.fresh.raw)}, ${mb(comparison.disk.fresh.warehouse)}`, `warehouse ratio ${fmt(comparison.disk.season.warehouse / comparison.disk.fresh.warehouse, 2)}`, ''],
      ['  retrains applied: records whose fan_id they listed as moving', runs.filter((run) => run.retrain).map((run) => `${fmt(run.retrain.listed.length)} at ${run.at}`).join(', ') || 'none', '', ''],
      ['  raw = fresh load, models = full rebuild, unchanged fans kept', lost === 0 ? 'equal' : JSON.stringify({ raw: comparison.raw, truth: comparison.profilesAgainstTruth, models: comparison.models, moved: comparison.movedFans.length }), `${fmt(comparison.fansAtStart)} fans at the start`, lost === 0 ? 'ok' : 'MISSED'],
      ['  revenue and season tickets = fresh load', figuresEqual ? 'equal' : JSON.stringify(comparison.figures), '', figuresEqual ? 'ok' : 'MISSED'],
    ];
  } finally {
    await sim.stop();
    rmSync(workDir, { recursive: true, force: true });
  }
}
