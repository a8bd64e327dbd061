// Extraction benchmark: ticketing extraction against a plain fetch + JSON.parse of the same
// pages at the same concurrency. The main figures run against `simulate --replay` (pages
// answered from bytes rendered once, so the figure measures fanlake); one figure keeps the
// live simulator, whose CPU per generated record is part of what it measures.
import { rmSync } from 'node:fs';
import { discoverRuns } from '../dist/load/discover-runs.js';
import { readRunManifest } from '../dist/raw-contract/index.js';
import { baselineFetch } from './baseline-fetch.mjs';
import { CREDENTIALS, fmt, fmtMemory, fmtPhases, fmtProfile, runOk, startSimulator, tempDir } from './lib.mjs';

const PINNED_NOW = '2026-06-01T00:00:00Z';
const CONCURRENCY = 8;
const LATENCY_MS = 50;
const PAGE_BASE = { users: 0, members: 1, tickets: 1, merchandise: 1, user_permissions: 0 };
const PATH = { users: '/api/users', members: '/api/members', tickets: '/api/tickets', merchandise: '/api/merchandise', user_permissions: '/api/user_permission' };

/** One extraction; every run is probed (bench/phase-probe.mjs, next to no cost), `profile` adds the CPU profile. */
async function extract(sim, profile = false, env = {}) {
  const dataDir = tempDir('fanlake-bench-');
  const run = await runOk(['extract', '--source', 'ticketing'], { FANLAKE_TICKETING_URL: sim.url, FANLAKE_DATA_DIR: dataDir, FANLAKE_CONCURRENCY: String(CONCURRENCY), ...env }, { probe: true, profile });
  const manifests = await readManifests(dataDir);
  const rows = manifests.reduce((sum, m) => sum + m.rows, 0);
  const jobs = manifests.flatMap((m) => m.windows.map((w) => ({ path: PATH[m.resource], from: w.from, to: w.to, pages: w.requests, pageBase: PAGE_BASE[m.resource] })));
  const pages = jobs.reduce((sum, j) => sum + j.pages, 0);
  rmSync(dataDir, { recursive: true, force: true });
  return { run, rows, jobs, pages };
}

async function readManifests(dataDir) {
  const runs = (await discoverRuns(dataDir)).filter((run) => run.source === 'ticketing');
  return Promise.all(runs.map((run) => readRunManifest(dataDir, run)));
}

/** Starts a server, runs `body` against it, always stops it. */
async function withServer(flags, body) {
  const sim = await startSimulator([...flags, '--now', PINNED_NOW]);
  try {
    return await body(sim);
  } finally {
    await sim.stop();
  }
}

/** The plain fetch of an extraction's pages at the same concurrency: the floor its ratio is measured against. */
async function plain(sim, jobs) {
  return baselineFetch({ baseUrl: sim.url, token: CREDENTIALS.FANLAKE_TICKETING_TOKEN, concurrency: CONCURRENCY, jobs });
}

/**
 * Extraction, then the plain fetch of the same pages, then the extraction again: the
 * ratio is each extraction over the plain fetch, so a figure of this shared machine shows
 * its spread instead of one lucky or unlucky number.
 */
async function bracketed(sim) {
  const first = await extract(sim);
  const floor = await plain(sim, first.jobs);
  const second = await extract(sim);
  // The other side of extract.conversionMemory: a DuckDB opened per part (docs/extraction.md).
  const released = await extract(sim, false, { FANLAKE_CONVERSION_MEMORY: 'release' });
  const ratios = [first.run.wallMs / floor.wallMs, second.run.wallMs / floor.wallMs];
  const cpuRatios = [first.run.cpuMs / floor.cpuMs, second.run.cpuMs / floor.cpuMs];
  return { first, second, released, floor, ratios, cpuRatios };
}

const range = (values, digits = 2) => (values.length === 1 ? fmt(values[0], digits) : `${fmt(Math.min(...values), digits)}–${fmt(Math.max(...values), digits)}`);

export async function benchExtraction({ scale }) {
  const bigScale = scale / 2;
  const smallScale = scale / 20;
  const big = await withServer(['--replay', '--scale', String(bigScale)], bracketed);
  const small = await withServer(['--replay', '--scale', String(smallScale)], async (sim) => ({ ...(await extract(sim)), profiled: await extract(sim, true) }));
  const slow = await withServer(['--replay', '--scale', '1', '--latency-ms', String(LATENCY_MS)], async (sim) => {
    const run = await extract(sim);
    return { ...run, floor: await plain(sim, run.jobs) };
  });
  const live = await withServer(['--scale', String(scale)], async (sim) => {
    const run = await extract(sim);
    return { ...run, floor: await plain(sim, run.jobs) };
  });

  const peaks = [big.first.run.peakMb, big.second.run.peakMb];
  const rssRatio = Math.max(...peaks) / small.run.peakMb;
  const ideal = (slow.pages * LATENCY_MS) / CONCURRENCY;
  const latencyRatio = slow.run.wallMs / ideal;
  const liveRatio = live.run.wallMs / live.floor.wallMs;
  const worst = Math.max(...big.ratios);
  const rows = big.first.rows;
  return [
    [`ticketing extract, replay scale ${bigScale}`, `${fmt(rows)} rows, ${fmt(big.first.pages)} pages in ${fmt(big.first.run.wallMs / 1000, 1)} s and ${fmt(big.second.run.wallMs / 1000, 1)} s`, `${fmt(rows / (big.first.run.wallMs / 1000))} rows/s`, ''],
    ['  vs plain fetch + JSON.parse (replay)', `${fmt(big.floor.wallMs / 1000, 1)} s for ${fmt(big.floor.pages)} pages`, `ratio ${range(big.ratios)}`, worst <= 1.3 ? 'ok (<= 1.3)' : 'MISSED (<= 1.3)'],
    ['  CPU time vs plain fetch (replay)', `${fmt(big.first.run.cpuMs / 1000, 1)} s and ${fmt(big.second.run.cpuMs / 1000, 1)} s vs ${fmt(big.floor.cpuMs / 1000, 1)} s`, `ratio ${range(big.cpuRatios)}`, ''],
    ['  peak RSS (replay)', `${range(peaks, 0)} MB (scale ${smallScale}: ${fmt(small.rows)} rows, ${fmt(small.run.peakMb)} MB)`, `ratio ${fmt(rssRatio, 2)}`, Math.max(...peaks) < 300 && rssRatio <= 1.2 ? 'ok (< 300 MB, <= 1.2x)' : 'MISSED (< 300 MB, <= 1.2x)'],
    [
      '  with --conversion-memory release (replay)',
      `${fmt(big.released.run.wallMs / 1000, 1)} s, CPU ${fmt(big.released.run.cpuMs / 1000, 1)} s, peak RSS ${fmt(big.released.run.peakMb)} MB`,
      `ratio ${fmt(big.released.run.wallMs / big.floor.wallMs, 2)}`,
      '',
    ],
    ['  where the time went (replay, 1st run)', fmtPhases(big.first.run.probe, CONCURRENCY), '', ''],
    ['  where the memory went (replay, 1st run)', fmtMemory(big.first.run.probe), '', ''],
    [`  main thread by phase (replay scale ${smallScale}, CPU profile)`, fmtProfile(small.profiled.run.probe), '', ''],
    [`  latency ${LATENCY_MS} ms, replay scale 1`, `${fmt(slow.run.wallMs / 1000, 1)} s vs ideal ${fmt(ideal / 1000, 1)} s (${fmt(slow.pages)} pages x ${LATENCY_MS} ms / ${CONCURRENCY})`, `ratio ${fmt(latencyRatio, 2)}`, latencyRatio <= 1.25 ? 'ok (<= 1.25)' : 'MISSED (<= 1.25)'],
    [`  plain fetch at ${LATENCY_MS} ms (replay)`, `${fmt(slow.floor.wallMs / 1000, 1)} s`, `ratio ${fmt(slow.floor.wallMs / ideal, 2)}`, ''],
    [`  where the time went (${LATENCY_MS} ms)`, fmtPhases(slow.run.probe, CONCURRENCY), '', ''],
    [`ticketing extract, live simulator scale ${scale}`, `${fmt(live.rows)} rows, ${fmt(live.pages)} pages in ${fmt(live.run.wallMs / 1000, 1)} s`, `${fmt(live.rows / (live.run.wallMs / 1000))} rows/s, peak RSS ${fmt(live.run.peakMb)} MB`, ''],
    ['  vs plain fetch (simulator)', `${fmt(live.floor.wallMs / 1000, 1)} s`, `ratio ${fmt(liveRatio, 2)}`, ''],
  ];
}
