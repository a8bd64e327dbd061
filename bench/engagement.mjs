// Engagement extraction benchmark: rows/s, wall time against plain fetches of the same
// requests (profile pages, one consents request per profile, participant pages) and
// against fanlake's own HTTP client alone on them, peak RSS.
// Against `simulate --replay`, warmed by one extraction so every reply is served from
// bytes; the live simulator's figure is kept beside it.
import { rmSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';
import { Agent, request } from 'undici';
import pLimit from 'p-limit';
import { createHttpClient } from '../dist/extract/http/http-client.js';
import { discoverRuns } from '../dist/load/discover-runs.js';
import { readRunManifest } from '../dist/raw-contract/index.js';
import { CREDENTIALS, fmt, fmtMemory, fmtPhases, runOk, startSimulator, tempDir } from './lib.mjs';

const CONCURRENCY = 8;
const PAGE_SIZE = 50;
const PINNED_NOW = '2026-06-01T00:00:00Z';
const RESOURCES = ['customer_profiles', 'people', 'consents', 'consent_texts', 'consent_sources', 'participants'];

async function extractOnce(sim) {
  const dataDir = tempDir('fanlake-bench-eng-');
  const env = { FANLAKE_ENGAGEMENT_URL: sim.url, FANLAKE_DATA_DIR: dataDir, FANLAKE_CONCURRENCY: String(CONCURRENCY) };
  const run = await runOk(['extract', '--source', 'engagement', '--resource', ...RESOURCES], env, { probe: true });
  let rows = 0;
  for (const done of await discoverRuns(dataDir)) rows += (await readRunManifest(dataDir, done)).rows;
  return { run, rows, dataDir };
}

/** The identity ids the consents fan-out asks for: each profile's first person. */
async function firstPeople(dataDir) {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const reader = await connection.runAndReadAll(
    `select json_extract_string(links, '$.people[0]') as person from read_parquet('${dataDir}/raw/engagement/customer_profiles/*/*.parquet', hive_partitioning = false) where person is not null`,
  );
  const ids = reader.getRowObjectsJson().map((row) => row.person);
  connection.closeSync();
  instance.closeSync();
  return ids;
}

/** The requests of one extraction: profile pages, participant pages, one consents request per profile. */
function requestUrls(sim, people, counts) {
  const base = `${sim.url}/v2/${CREDENTIALS.FANLAKE_ENGAGEMENT_ORG_ID}`;
  return [
    ...Array.from({ length: Math.ceil((counts.profiles + 1) / PAGE_SIZE) }, (_, k) => `${base}/customerinsights/customerprofiles?pageIndex=${k}&pageSize=${PAGE_SIZE}`),
    ...Array.from({ length: Math.ceil((counts.participants + 1) / PAGE_SIZE) }, (_, k) => `${base}/campaign/participants?pageIndex=${k}&pageSize=${PAGE_SIZE}`),
    ...people.map((id) => `${base}/customerinsights/customerprofiles/${id}/consents?includeRevoked=true&pageIndex=0&pageSize=${PAGE_SIZE}`),
  ];
}

const HEADERS = { authorization: `Basic ${CREDENTIALS.FANLAKE_ENGAGEMENT_API_KEY}` };

async function baseline(urls) {
  const agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 30_000 });
  const limit = pLimit(CONCURRENCY);
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  await Promise.all(urls.map((url) => limit(async () => JSON.parse(await (await request(url, { dispatcher: agent, headers: HEADERS })).body.text()))));
  await agent.close();
  const cpu = process.cpuUsage(cpuStarted);
  return { wallMs: performance.now() - started, cpuMs: (cpu.user + cpu.system) / 1000, requests: urls.length };
}

/**
 * The same requests through fanlake's own HTTP client (its getJson parses each body), with
 * as many callers as the snapshot engine runs: a stricter floor than the plain fetch, whose
 * undici `request()` costs a stream per request. The extract's ratio to it says what
 * everything beyond fetching and parsing costs.
 */
async function clientAlone(urls) {
  const client = createHttpClient({ concurrency: CONCURRENCY, timeoutMs: 30_000, maxAttempts: 1, userAgent: 'fanlake-bench' });
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  let next = 0;
  const caller = async () => {
    while (next < urls.length) await client.getJson(urls[next++], { headers: HEADERS });
  };
  await Promise.all(Array.from({ length: CONCURRENCY * 2 }, caller));
  await client.close();
  const cpu = process.cpuUsage(cpuStarted);
  return { wallMs: performance.now() - started, cpuMs: (cpu.user + cpu.system) / 1000 };
}

/** One extraction and the plain fetch of its requests against a started server. */
async function measured(sim) {
  const { run, rows, dataDir } = await extractOnce(sim);
  const people = await firstPeople(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
  const counts = {
    profiles: Number(/engagement\.customer_profiles\s+ok\s+(\d+)/.exec(run.stdout)?.[1] ?? 0),
    participants: Number(/engagement\.participants\s+ok\s+(\d+)/.exec(run.stdout)?.[1] ?? 0),
  };
  const urls = requestUrls(sim, people, counts);
  const plain = await baseline(urls);
  const client = await clientAlone(urls);
  return { run, rows, plain, client, ratio: run.wallMs / plain.wallMs };
}

async function replayStats(sim) {
  return (await fetch(`${sim.url}/__replay/stats`)).json();
}

async function withServer(flags, body) {
  const sim = await startSimulator([...flags, '--now', PINNED_NOW]);
  try {
    return await body(sim);
  } finally {
    await sim.stop();
  }
}

export async function benchEngagement({ scale }) {
  const replay = await withServer(['--replay', '--scale', String(scale)], async (sim) => {
    rmSync((await extractOnce(sim)).dataDir, { recursive: true, force: true }); // renders every reply once
    const before = await replayStats(sim);
    const result = await measured(sim);
    const after = await replayStats(sim);
    return { ...result, misses: after.misses - before.misses };
  });
  const live = await withServer(['--scale', String(scale)], measured);
  return [
    [`engagement extract, replay scale ${scale}`, `${fmt(replay.rows)} rows (profiles, people, consents, participants) in ${fmt(replay.run.wallMs / 1000, 1)} s`, `${fmt(replay.rows / (replay.run.wallMs / 1000))} rows/s`, ''],
    ['  vs plain fetch + JSON.parse (replay)', `${fmt(replay.plain.wallMs / 1000, 1)} s for ${fmt(replay.plain.requests)} requests (${fmt(replay.misses)} not replayed)`, `ratio ${fmt(replay.ratio, 2)}`, replay.ratio <= 1.3 ? 'ok (<= 1.3)' : 'MISSED (<= 1.3)'],
    ['  vs fanlake\'s HTTP client alone (replay)', `${fmt(replay.client.wallMs / 1000, 1)} s, CPU ${fmt(replay.client.cpuMs / 1000, 1)} s (a stricter floor: no stream per request)`, `ratio ${fmt(replay.run.wallMs / replay.client.wallMs, 2)}`, ''],
    ['  CPU time vs plain fetch (replay)', `${fmt(replay.run.cpuMs / 1000, 1)} s vs ${fmt(replay.plain.cpuMs / 1000, 1)} s`, `ratio ${fmt(replay.run.cpuMs / replay.plain.cpuMs, 2)}`, ''],
    ['  peak RSS (replay)', `${fmt(replay.run.peakMb)} MB`, '', replay.run.peakMb < 300 ? 'ok (< 300 MB)' : 'MISSED (< 300 MB)'],
    ['  where the time went (replay)', fmtPhases(replay.run.probe, CONCURRENCY), '', ''],
    ['  where the memory went (replay)', fmtMemory(replay.run.probe), '', ''],
    [`engagement extract, live simulator scale ${scale}`, `${fmt(live.run.wallMs / 1000, 1)} s, peak RSS ${fmt(live.run.peakMb)} MB`, `ratio ${fmt(live.ratio, 2)} of plain fetch (${fmt(live.plain.wallMs / 1000, 1)} s)`, ''],
  ];
}
