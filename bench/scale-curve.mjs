// The scale curve: a full pipeline (extract, load, build, check, report, each its own
// bin/fanlake process) against the simulator at each scale, with each stage's wall time, CPU
// time, peak RSS and the most DuckDB spilled, and the cost per doubling (the ratio to the
// previous scale). Outside `make bench`: at scale 80 it takes hours on two cores.
// Each finished stage is appended to the log as one JSON line, so a curve stopped halfway
// keeps what it measured; the table is printed from the log, so scales measured by separate
// invocations (10,20 now, 40,80 later) form one curve.
// Usage: node bench/scale-curve.mjs [--scales 10,20,40,80] [--log scale-curve.log] [--seed 1]
//          [--clean] [--keep] [--table]
// (--clean: the simulator without --noise; --keep: keep each scale's data directory;
// --table: print the table of the log and run nothing). FANLAKE_MEMORY_LIMIT and
// FANLAKE_THREADS in the environment reach every stage, to measure other DuckDB budgets.
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { bytesUnder, CREDENTIALS, flag, fmt, modelRows, REPO, runMeasured, slowest, startSimulator, tempDir } from './lib.mjs';

const STAGES = ['extract', 'load', 'build', 'check', 'report'];
const PINNED_NOW = '2026-06-01T00:00:00Z';
/** How often the spill folder's size is sampled. */
const SPILL_SAMPLE_MS = 1000;

const scales = (flag('--scales') ?? '10,20,40,80').split(',').map(Number);
const logPath = resolve(flag('--log') ?? 'scale-curve.log');
const seed = flag('--seed') ?? '1';
const noise = !process.argv.includes('--clean');
const keep = process.argv.includes('--keep');

/** Peak RSS of a process from /proc (VmHWM), in MB; 0 once it has exited. */
function peakRssMb(pid) {
  try {
    return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/**
 * One stage as its own process: wall, CPU, the kernel's peak RSS (its own getrusage at exit,
 * or the sampled high-water mark if larger) and the most bytes DuckDB's spill folder held.
 */
async function stage(name, env, dataDir) {
  const rssFile = join(dataDir, `.max-rss-${name}`);
  let spillBytes = 0;
  const spill = setInterval(() => (spillBytes = Math.max(spillBytes, bytesUnder(join(dataDir, 'warehouse.duckdb.tmp')))), SPILL_SAMPLE_MS);
  const run = await runMeasured([name], { ...env, NODE_OPTIONS: `--import ${join(REPO, 'bench', 'max-rss-at-exit.mjs')}`, BENCH_MAX_RSS_FILE: rssFile });
  clearInterval(spill);
  const atExitMb = existsSync(rssFile) ? Number(readFileSync(rssFile, 'utf8')) / 1024 : 0;
  const slowestModels = name === 'build' ? { slowest: slowest(modelRows(run.stdout).filter(({ status }) => status === 'ok'), 8) } : {};
  const failingTests = name === 'check' ? { failing: failingTestsOf(run.stdout) } : {};
  return { code: run.code, wallS: run.wallMs / 1000, cpuS: run.cpuMs / 1000, peakMb: Math.max(run.peakMb, atExitMb), spillMb: spillBytes / 2 ** 20, ...slowestModels, ...failingTests, stderr: run.stderr.slice(-1500) };
}

/**
 * The tests a check's table shows failed or broken ("<test>  <severity>  fail|error  <failures>
 * <read>"), so a curve that keeps no data directory still says which test a scale failed.
 */
function failingTestsOf(stdout) {
  return stdout
    .split('\n')
    .filter((line) => /\s(fail|error)\s+\d+\s/.test(line))
    .map((line) => line.trim().replace(/\s{2,}/g, '  '));
}

/** The checkout each stage ran (its commit, `+` when changed since): a curve may span commits. */
function commit() {
  const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim();
  const changed = execFileSync('git', ['status', '--porcelain', '--untracked-files=no', 'src', 'sql'], { cwd: REPO, encoding: 'utf8' }).trim() !== '';
  return changed ? `${head}+` : head;
}

function append(entry) {
  appendFileSync(logPath, `${JSON.stringify({ at: new Date().toISOString(), commit: commit(), ...entry })}\n`);
}

async function measureScale(scale) {
  const started = performance.now();
  const sim = await startSimulator(['--scale', String(scale), '--seed', seed, '--now', PINNED_NOW, ...(noise ? ['--noise'] : [])]);
  const startupS = (performance.now() - started) / 1000;
  const dataDir = tempDir(`fanlake-scale-${scale}-`);
  const env = { FANLAKE_TICKETING_URL: sim.url, FANLAKE_ENGAGEMENT_URL: sim.url, FANLAKE_DATA_DIR: dataDir, ...CREDENTIALS };
  const budget = { memoryLimit: process.env.FANLAKE_MEMORY_LIMIT ?? 'default', threads: process.env.FANLAKE_THREADS ?? 'default' };
  console.log(`scale ${scale}: simulator up in ${fmt(startupS, 1)} s, data in ${dataDir}`);
  try {
    for (const name of STAGES) {
      const result = await stage(name, env, dataDir);
      const { stderr, ...figures } = result;
      append({ scale, stage: name, noise, seed, ...budget, ...figures, simulatorPeakMb: peakRssMb(sim.pid), ...(result.code === 0 ? {} : { stderr }) });
      console.log(`scale ${scale} ${name}: ${fmt(result.wallS, 1)} s, peak ${fmt(result.peakMb)} MB, spilled ${fmt(result.spillMb)} MB${result.code === 0 ? '' : `, exit ${result.code}`}`);
      for (const line of result.failing ?? []) console.log(`  failed: ${line}`);
      // check exits 1 when a data test fails: the stages after it still have a warehouse to work on
      if (result.code !== 0 && name !== 'check') throw new Error(`${name} at scale ${scale} failed: ${stderr}`);
    }
    append({ scale, stage: 'simulator', noise, seed, startupS, peakMb: peakRssMb(sim.pid) });
  } finally {
    await sim.stop();
    if (!keep) rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The newest figures of each (scale, stage) in the log, with the whole run summed per scale. */
function readLog() {
  const latest = new Map();
  if (!existsSync(logPath)) return latest;
  for (const line of readFileSync(logPath, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const entry = JSON.parse(line);
    if (STAGES.includes(entry.stage)) latest.set(`${entry.scale}|${entry.stage}`, entry);
  }
  return latest;
}

function printTable() {
  const latest = readLog();
  const measured = [...new Set([...latest.values()].map((e) => e.scale))].sort((a, b) => a - b);
  const rows = [['scale', 'stage', 'wall s', 'x prev', 'cpu s', 'x prev', 'peak MB', 'x prev', 'spill MB']];
  for (const [at, scale] of measured.entries()) {
    const previous = measured[at - 1];
    let total = { wallS: 0, cpuS: 0, peakMb: 0, spillMb: 0 };
    let previousTotal = { wallS: 0, cpuS: 0, peakMb: 0 };
    let complete = true;
    for (const name of STAGES) {
      const entry = latest.get(`${scale}|${name}`);
      const before = previous === undefined ? undefined : latest.get(`${previous}|${name}`);
      if (!entry) {
        complete = false;
        continue;
      }
      total = { wallS: total.wallS + entry.wallS, cpuS: total.cpuS + entry.cpuS, peakMb: Math.max(total.peakMb, entry.peakMb), spillMb: Math.max(total.spillMb, entry.spillMb) };
      if (before) previousTotal = { wallS: previousTotal.wallS + before.wallS, cpuS: previousTotal.cpuS + before.cpuS, peakMb: Math.max(previousTotal.peakMb, before.peakMb) };
      rows.push([scale, name, fmt(entry.wallS, 1), ratio(entry.wallS, before?.wallS), fmt(entry.cpuS, 1), ratio(entry.cpuS, before?.cpuS), fmt(entry.peakMb), ratio(entry.peakMb, before?.peakMb), fmt(entry.spillMb)]);
    }
    const ratios = complete && previousTotal.wallS > 0;
    rows.push([scale, complete ? 'run' : 'run (partial)', fmt(total.wallS, 1), ratios ? ratio(total.wallS, previousTotal.wallS) : '', fmt(total.cpuS, 1), ratios ? ratio(total.cpuS, previousTotal.cpuS) : '', fmt(total.peakMb), ratios ? ratio(total.peakMb, previousTotal.peakMb) : '', fmt(total.spillMb)]);
  }
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  for (const row of rows) console.log(row.map((cell, c) => String(cell).padStart(widths[c])).join('  '));
  console.log(`(x prev: the ratio to the previous scale in the log, ${logPath}; the ratio per doubling is its square root where scales are 4x apart)`);
}

function ratio(value, before) {
  return before ? `${fmt(value / before, 2)}x` : '';
}

if (!process.argv.includes('--table')) {
  for (const scale of scales) {
    try {
      await measureScale(scale);
    } catch (error) {
      append({ scale, stage: 'failed', error: String(error).slice(0, 2000) });
      console.error(String(error));
      process.exitCode = 1;
      break;
    }
  }
}
printTable();
