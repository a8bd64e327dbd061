// Extraction benchmark: rows/s, wall time against a plain-fetch baseline over the same
// windows, peak RSS at two scales, and wall time against the latency-bound ideal.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { baselineFetch } from './baseline-fetch.mjs';
import { CREDENTIALS, fmt, runMeasured, startSimulator, tempDir } from './lib.mjs';

const PINNED_NOW = '2026-06-01T00:00:00Z';
const CONCURRENCY = 8;
const PAGE_BASE = { users: 0, members: 1, tickets: 1, merchandise: 1, user_permissions: 0 };
const PATH = { users: '/api/users', members: '/api/members', tickets: '/api/tickets', merchandise: '/api/merchandise', user_permissions: '/api/user_permission' };

async function extractOnce(scale, latencyMs) {
  const sim = await startSimulator(['--scale', String(scale), '--latency-ms', String(latencyMs), '--now', PINNED_NOW]);
  try {
    const dataDir = tempDir('fanlake-bench-');
    const run = await runMeasured(['extract', '--source', 'ticketing'], { FANLAKE_TICKETING_URL: sim.url, FANLAKE_DATA_DIR: dataDir, FANLAKE_CONCURRENCY: String(CONCURRENCY) });
    if (run.code !== 0) throw new Error(`extract failed: ${run.stderr}`);
    const manifests = readManifests(dataDir);
    const rows = manifests.reduce((sum, m) => sum + m.rows, 0);
    const jobs = manifests.flatMap((m) => m.windows.map((w) => ({ path: PATH[m.resource], from: w.from, to: w.to, pages: w.requests, pageBase: PAGE_BASE[m.resource] })));
    const pages = jobs.reduce((sum, j) => sum + j.pages, 0);
    return { sim, run, rows, jobs, pages };
  } catch (error) {
    await sim.stop();
    throw error;
  }
}

function readManifests(dataDir) {
  const root = join(dataDir, 'raw', 'ticketing');
  return readdirSync(root).flatMap((resource) =>
    readdirSync(join(root, resource)).map((run) => JSON.parse(readFileSync(join(root, resource, run, '_manifest.json'), 'utf8'))),
  );
}

export async function benchExtraction({ scale }) {
  const lines = [];
  const big = await extractOnce(scale, 0);
  let baseline;
  try {
    baseline = await baselineFetch({ baseUrl: big.sim.url, token: CREDENTIALS.FANLAKE_TICKETING_TOKEN, concurrency: CONCURRENCY, jobs: big.jobs });
  } finally {
    await big.sim.stop();
  }
  const small = await extractOnce(1, 0);
  await small.sim.stop();
  const slow = await extractOnce(1, 50);
  let slowBaseline;
  try {
    slowBaseline = await baselineFetch({ baseUrl: slow.sim.url, token: CREDENTIALS.FANLAKE_TICKETING_TOKEN, concurrency: CONCURRENCY, jobs: slow.jobs });
  } finally {
    await slow.sim.stop();
  }
  const ideal = (slow.pages * 50) / CONCURRENCY;

  const ratio = big.run.wallMs / baseline.wallMs;
  const rssRatio = big.run.peakMb / small.run.peakMb;
  const latencyRatio = slow.run.wallMs / ideal;
  lines.push(['ticketing extract, scale ' + scale, `${fmt(big.rows)} rows, ${fmt(big.pages)} pages in ${fmt(big.run.wallMs / 1000, 1)} s`, `${fmt(big.rows / (big.run.wallMs / 1000))} rows/s`, '']);
  lines.push(['  vs plain fetch + JSON.parse', `${fmt(baseline.wallMs / 1000, 1)} s for ${fmt(baseline.pages)} pages`, `ratio ${fmt(ratio, 2)}`, ratio <= 1.3 ? 'ok (<= 1.3)' : 'MISSED (<= 1.3)']);
  lines.push(['  peak RSS', `${fmt(big.run.peakMb)} MB (scale 1: ${fmt(small.run.peakMb)} MB)`, `ratio ${fmt(rssRatio, 2)}`, big.run.peakMb < 300 && rssRatio <= 1.2 ? 'ok (< 300 MB, <= 1.2x)' : 'MISSED (< 300 MB, <= 1.2x)']);
  lines.push(['  latency 50 ms, scale 1', `${fmt(slow.run.wallMs / 1000, 1)} s vs ideal ${fmt(ideal / 1000, 1)} s (${fmt(slow.pages)} pages x 50 ms / ${CONCURRENCY})`, `ratio ${fmt(latencyRatio, 2)}`, latencyRatio <= 1.25 ? 'ok (<= 1.25)' : 'MISSED (<= 1.25)']);
  // The same pages fetched plainly, to tell the extractor's overhead from the simulator's own CPU.
  lines.push(['  plain fetch at 50 ms', `${fmt(slowBaseline.wallMs / 1000, 1)} s`, `ratio ${fmt(slowBaseline.wallMs / ideal, 2)}`, '']);
  return lines;
}
