// Identity resolution quality: pairwise precision and recall of marts.fan_identity_links
// against the simulator's ground truth, at scale 0.1 (the scoring scale), on the
// simulator's data as it was and with its real-world noise on (--noise). Both are our own
// generated data: the simulator shares our assumptions about what noise looks like.
// Usage alone: node bench/identity.mjs [scale] [seed]
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { readFanIdentityLinks, scoreIdentityLinks } from '../dist/models/identity-score.js';
import { independentIdentities } from './independent-identities/index.mjs';
import { writeExtraction } from './independent-identities/load.mjs';
import { CREDENTIALS, fmt, runMeasured, startSimulator, tempDir } from './lib.mjs';

export async function benchIdentity({ identityScale = 0.1, seed = 11 } = {}) {
  const rows = [];
  for (const noise of [false, true]) {
    const { links, score } = await scoreRun(identityScale, seed, noise);
    const ok = score.precision >= 0.99 && score.recall >= 0.95;
    rows.push([
      `identity resolution, scale ${identityScale}, seed ${seed}${noise ? ', noise' : ''}`,
      `${fmt(links.length)} records, ${fmt(new Set(links.map((l) => l.fanId)).size)} fans`,
      `precision ${fmt(score.precision, 4)}, recall ${fmt(score.recall, 4)}`,
      ok ? 'ok (>= 0.99, >= 0.95)' : 'MISSED (>= 0.99, >= 0.95)',
    ]);
  }
  return rows;
}

/** Extracts, loads and builds identity resolution from a fresh simulator; its links, truth and score. */
export async function scoreRun(scale, seed, noise) {
  const sim = await startSimulator(['--scale', String(scale), '--seed', String(seed), '--admin', ...(noise ? ['--noise'] : [])]);
  try {
    const dataDir = tempDir('fanlake-bench-id-');
    const env = { FANLAKE_TICKETING_URL: sim.url, FANLAKE_ENGAGEMENT_URL: sim.url, FANLAKE_DATA_DIR: dataDir, ...CREDENTIALS };
    for (const args of [['extract'], ['load'], ['build', '--select', '+fan_identity_links']]) {
      const run = await runMeasured(args, env);
      if (run.code !== 0) throw new Error(`fanlake ${args.join(' ')} failed: ${run.stderr.slice(-2000)}`);
    }
    const truth = (await (await fetch(`${sim.url}/__admin/truth`)).text()).trim().split('\n').map((line) => JSON.parse(line));
    const links = await readLinks(dataDir);
    return { links, truth, dataDir, score: scoreIdentityLinks(links, truth) };
  } finally {
    await sim.stop();
  }
}

/**
 * Generates the independent identity set (bench/independent-identities), writes it as an
 * extraction run, loads and builds identity resolution; its links, truth and score.
 */
export async function scoreIndependent(persons, seed) {
  const set = independentIdentities({ persons, seed });
  const dataDir = tempDir('fanlake-bench-independent-');
  await writeExtraction(dataDir, set.raw);
  for (const args of [['load'], ['build', '--select', '+fan_identity_links']]) {
    const run = await runMeasured(args, { FANLAKE_DATA_DIR: dataDir });
    if (run.code !== 0) throw new Error(`fanlake ${args.join(' ')} failed: ${run.stderr.slice(-2000)}`);
  }
  const links = await readLinks(dataDir);
  return { links, truth: set.truth, dataDir, score: scoreIdentityLinks(links, set.truth) };
}

async function readLinks(dataDir) {
  const instance = await DuckDBInstance.create(join(dataDir, 'warehouse.duckdb'), { access_mode: 'READ_ONLY' });
  try {
    const connection = await instance.connect();
    const links = await readFanIdentityLinks(connection);
    connection.closeSync();
    return links;
  } finally {
    instance.closeSync();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await benchIdentity({ identityScale: Number(process.argv[2] ?? 0.1), seed: Number(process.argv[3] ?? 11) });
  for (const row of rows) console.log(row.join('  '));
}
