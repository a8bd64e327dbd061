// Identity resolution quality: pairwise precision and recall of marts.fan_identity_links
// against the simulator's ground truth, at scale 0.1 (the scoring scale).
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { readFanIdentityLinks, scoreIdentityLinks } from '../dist/models/identity-score.js';
import { CREDENTIALS, fmt, runMeasured, startSimulator, tempDir } from './lib.mjs';

export async function benchIdentity() {
  const sim = await startSimulator(['--scale', '0.1', '--seed', '11', '--admin']);
  try {
    const dataDir = tempDir('fanlake-bench-id-');
    const env = { FANLAKE_TICKETING_URL: sim.url, FANLAKE_ENGAGEMENT_URL: sim.url, FANLAKE_DATA_DIR: dataDir, ...CREDENTIALS };
    for (const args of [['extract'], ['load'], ['build', '--select', '+fan_identity_links']]) {
      const run = await runMeasured(args, env);
      if (run.code !== 0) throw new Error(`fanlake ${args.join(' ')} failed: ${run.stderr.slice(-2000)}`);
    }
    const truth = (await (await fetch(`${sim.url}/__admin/truth`)).text()).trim().split('\n').map((line) => JSON.parse(line));
    const instance = await DuckDBInstance.create(join(dataDir, 'warehouse.duckdb'), { access_mode: 'READ_ONLY' });
    const connection = await instance.connect();
    const links = await readFanIdentityLinks(connection);
    connection.closeSync();
    instance.closeSync();
    const score = scoreIdentityLinks(links, truth);
    const ok = score.precision >= 0.99 && score.recall >= 0.95;
    return [
      ['identity resolution, scale 0.1', `${fmt(links.length)} records, ${fmt(new Set(links.map((l) => l.fanId)).size)} fans`, `precision ${fmt(score.precision, 4)}, recall ${fmt(score.recall, 4)}`, ok ? 'ok (>= 0.99, >= 0.95)' : 'MISSED (>= 0.99, >= 0.95)'],
    ];
  } finally {
    await sim.stop();
  }
}
