// Engagement extraction benchmark: rows/s, wall time against plain fetches of the same
// requests (profile pages, one consents request per profile, participant pages), peak RSS.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { Agent, request } from 'undici';
import pLimit from 'p-limit';
import { CREDENTIALS, fmt, runMeasured, startSimulator, tempDir } from './lib.mjs';

const CONCURRENCY = 8;
const PAGE_SIZE = 50;
const RESOURCES = ['customer_profiles', 'people', 'consents', 'consent_texts', 'consent_sources', 'participants'];

async function extractOnce(sim) {
  const dataDir = tempDir('fanlake-bench-eng-');
  const env = { FANLAKE_ENGAGEMENT_URL: sim.url, FANLAKE_DATA_DIR: dataDir, FANLAKE_CONCURRENCY: String(CONCURRENCY) };
  const run = await runMeasured(['extract', '--source', 'engagement', '--resource', ...RESOURCES], env);
  if (run.code !== 0) throw new Error(`extract failed: ${run.stderr}`);
  const root = join(dataDir, 'raw', 'engagement');
  let rows = 0;
  for (const resource of readdirSync(root)) {
    for (const runDir of readdirSync(join(root, resource))) rows += JSON.parse(readFileSync(join(root, resource, runDir, '_manifest.json'), 'utf8')).rows;
  }
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

async function baseline(sim, people, counts) {
  const agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 30_000 });
  const limit = pLimit(CONCURRENCY);
  const base = `${sim.url}/v2/${CREDENTIALS.FANLAKE_ENGAGEMENT_ORG_ID}`;
  const headers = { authorization: `Basic ${CREDENTIALS.FANLAKE_ENGAGEMENT_API_KEY}` };
  const urls = [
    ...Array.from({ length: Math.ceil((counts.profiles + 1) / PAGE_SIZE) }, (_, k) => `${base}/customerinsights/customerprofiles?pageIndex=${k}&pageSize=${PAGE_SIZE}`),
    ...Array.from({ length: Math.ceil((counts.participants + 1) / PAGE_SIZE) }, (_, k) => `${base}/campaign/participants?pageIndex=${k}&pageSize=${PAGE_SIZE}`),
    ...people.map((id) => `${base}/customerinsights/customerprofiles/${id}/consents?includeRevoked=true&pageIndex=0&pageSize=${PAGE_SIZE}`),
  ];
  const started = performance.now();
  await Promise.all(urls.map((url) => limit(async () => JSON.parse(await (await request(url, { dispatcher: agent, headers })).body.text()))));
  await agent.close();
  return { wallMs: performance.now() - started, requests: urls.length };
}

export async function benchEngagement({ scale }) {
  const sim = await startSimulator(['--scale', String(scale), '--now', '2026-06-01T00:00:00Z']);
  try {
    const { run, rows, dataDir } = await extractOnce(sim);
    const people = await firstPeople(dataDir);
    const counts = {
      profiles: Number(/engagement\.customer_profiles\s+ok\s+(\d+)/.exec(run.stdout)?.[1] ?? 0),
      participants: Number(/engagement\.participants\s+ok\s+(\d+)/.exec(run.stdout)?.[1] ?? 0),
    };
    const plain = await baseline(sim, people, counts);
    const ratio = run.wallMs / plain.wallMs;
    return [
      ['engagement extract, scale ' + scale, `${fmt(rows)} rows (profiles, people, consents, participants) in ${fmt(run.wallMs / 1000, 1)} s`, `${fmt(rows / (run.wallMs / 1000))} rows/s`, ''],
      ['  vs plain fetch + JSON.parse', `${fmt(plain.wallMs / 1000, 1)} s for ${fmt(plain.requests)} requests`, `ratio ${fmt(ratio, 2)}`, ratio <= 1.3 ? 'ok (<= 1.3)' : 'MISSED (<= 1.3)'],
      ['  peak RSS', `${fmt(run.peakMb)} MB`, '', run.peakMb < 300 ? 'ok (< 300 MB)' : 'MISSED (< 300 MB)'],
    ];
  } finally {
    await sim.stop();
  }
}
