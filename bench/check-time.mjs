// Where a check's time goes: `runChecks` on a data directory, in process, with each test's
// seconds, summed by how the test read its rows (whole tables, the changed rows, carried).
// It records its results as `fanlake check` does, so run it on a copy of the directory.
// Sync the copy first (`sync <copy>/warehouse.duckdb`): the check's closing checkpoint syncs the
// file, and a fresh copy's pages not yet written otherwise count in its time (up to about 0.5 s at scale 10).
// Usage: node bench/check-time.mjs <data dir> [how many of the costliest tests to list]
import { join } from 'node:path';
import { REPO } from './lib.mjs';

const { runChecks } = await import(join(REPO, 'dist', 'models', 'checks', 'run-checks.js'));
const [dataDir, listed = '10'] = process.argv.slice(2);
if (!dataDir) {
  console.error('usage: node bench/check-time.mjs <data dir> [tests listed]');
  process.exit(2);
}
const started = performance.now();
const results = await runChecks({ dataDir, modelsDir: join(REPO, 'sql') });
const seconds = (performance.now() - started) / 1000;
const byRead = {};
for (const result of results) {
  const read = result.carriedFrom ? 'carried' : result.changedRowsOnly ? 'changed rows' : result.status === 'skipped' ? 'skipped' : 'whole tables';
  byRead[read] ??= { tests: 0, seconds: 0 };
  byRead[read].tests += 1;
  byRead[read].seconds += result.seconds ?? 0;
}
console.log(`check: ${seconds.toFixed(1)} s, ${results.length} tests`);
for (const [read, { tests, seconds: spent }] of Object.entries(byRead)) console.log(`  ${read}: ${tests} tests, ${spent.toFixed(2)} s`);
for (const result of results.filter((r) => !r.carriedFrom).sort((a, b) => (b.seconds ?? 0) - (a.seconds ?? 0)).slice(0, Number(listed))) {
  console.log(`  ${(result.seconds ?? 0).toFixed(2)} s  ${result.name}${result.changedRowsOnly ? ' (changed rows)' : ''}`);
}
