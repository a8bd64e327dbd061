// Candidate pairs per record as the club grows: the identity model's blocking rules
// (sql/identity/blocking_rules.csv, each capped) must keep them flat, so that the work grows with
// the records, not with their square. For each scale of the noisy simulator: extract,
// load, build the identity model's pairs (which trains the model), and count the candidate pairs
// (macros.identity_candidate_pairs: the pairs the blocks make, and of those the pairs worth
// comparing), the pairs the model scores at least the review threshold and the links.
// Usage alone: node bench/identity-pairs.mjs [--pair-scales 10,20,40]
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { CREDENTIALS, flag, fmt, runOk, startSimulator, tempDir } from './lib.mjs';

export async function benchIdentityPairs({ scales = (flag('--pair-scales') ?? '10,20,40').split(',').map(Number) } = {}) {
  const rows = [];
  for (const scale of scales) {
    const sim = await startSimulator(['--scale', String(scale), '--seed', '11', '--noise']);
    const dataDir = tempDir('fanlake-bench-pairs-');
    try {
      const env = { FANLAKE_TICKETING_URL: sim.url, FANLAKE_ENGAGEMENT_URL: sim.url, FANLAKE_DATA_DIR: dataDir, ...CREDENTIALS };
      await runOk(['extract'], env);
      await runOk(['load'], env);
      const build = await runOk(['build', '--select', '+int_identity_edges'], env);
      const counts = await countPairs(dataDir);
      rows.push([
        `identity candidate pairs, noisy simulator scale ${scale}`,
        `${fmt(counts.records)} records`,
        `${fmt(counts.candidates)} candidate pairs, ${fmt(counts.candidates / counts.records, 2)} per record (${fmt(counts.blocked)} blocked, ${fmt(counts.blocked / counts.records, 2)} per record, before macros.identity_worth_comparing); ${fmt(counts.scored)} scored at least the review threshold, ${fmt(counts.links)} model links; build with training ${fmt(build.wallMs / 1000, 1)} s wall, ${fmt(build.cpuMs / 1000, 1)} s CPU`,
        '',
      ]);
    } finally {
      await sim.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return rows;
}

async function countPairs(dataDir) {
  const instance = await DuckDBInstance.create(join(dataDir, 'warehouse.duckdb'), { access_mode: 'READ_ONLY' });
  try {
    const connection = await instance.connect();
    const [row] = (
      await connection.runAndReadAll(`select
          (select count(*) from intermediate.int_identity_records) as records,
          (select count(*) from macros.identity_candidate_pairs('intermediate.int_identity_comparables', 'blocked')) as blocked,
          (select count(*) from macros.identity_candidate_pairs('intermediate.int_identity_comparables', 'predict')) as candidates,
          (select count(*) from intermediate.int_identity_pairs) as scored,
          (select count(*) from intermediate.int_identity_pairs where is_link) as links`)
    ).getRowObjectsJson();
    connection.closeSync();
    return Object.fromEntries(Object.entries(row).map(([key, value]) => [key, Number(value)]));
  } finally {
    instance.closeSync();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const line of await benchIdentityPairs()) console.log(line.join('  '));
}
