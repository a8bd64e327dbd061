// Shared helpers of the benchmarks: a simulator in a child process, a command timed with
// its peak RSS, and a plain-fetch baseline. Figures are ratios measured in one run.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const REPO = resolve(import.meta.dirname, '..');
export const BIN = join(REPO, 'bin', 'fanlake');
export const CREDENTIALS = {
  FANLAKE_TICKETING_TOKEN: 'bench-ticketing-token',
  FANLAKE_ENGAGEMENT_API_KEY: 'bench-engagement-key',
  FANLAKE_ENGAGEMENT_ORG_ID: '4711',
};

export function tempDir(prefix) {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Bytes of every file under a folder (0 when it does not exist). */
export function bytesUnder(path) {
  let total = 0;
  let entries = [];
  try {
    entries = readdirSync(path, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const child = join(path, entry.name);
    try {
      total += entry.isDirectory() ? bytesUnder(child) : statSync(child).size;
    } catch {
      // Removed while walked (DuckDB's spill files come and go).
    }
  }
  return total;
}

/** Starts `fanlake simulate` with the given flags; resolves once it listens. */
export function startSimulator(flags) {
  const child = spawn(process.execPath, [BIN, 'simulate', '--port', '0', ...flags], {
    env: { ...process.env, ...CREDENTIALS },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolvePromise, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolvePromise({ url: match[1], pid: child.pid, stop: () => stop(child) });
    });
    child.stderr.on('data', () => undefined);
    child.on('exit', (code) => reject(new Error(`simulator exited with ${code}`)));
  });
}

function stop(child) {
  return new Promise((resolvePromise) => {
    child.removeAllListeners('exit');
    child.on('exit', () => resolvePromise());
    child.kill('SIGTERM');
  });
}

/**
 * Runs the CLI; returns wall time, CPU time (user + system, all threads, sampled every
 * 50 ms: on a shared machine it says what wall time cannot), the kernel's peak RSS of the
 * process (VmHWM) and output. With `probe`, bench/phase-probe.mjs rides along and its
 * figures come back as `probe` (`profile: true` adds the main thread's CPU profile by phase,
 * which costs a little CPU: not for runs whose ratio is printed). `bin`: another checkout's
 * bin/fanlake, to measure two versions alike.
 */
export function runMeasured(args, env, { probe = false, profile = false, bin = BIN } = {}) {
  const probeOut = probe ? join(tempDir('fanlake-probe-'), 'probe.json') : undefined;
  if (probeOut) {
    env = { ...env, NODE_OPTIONS: `--import ${join(REPO, 'bench', 'phase-probe.mjs')}`, BENCH_PROBE_OUT: probeOut, BENCH_PROBE_PROFILE: profile ? '1' : '0' };
  }
  const started = performance.now();
  // As a user runs it (bin/fanlake's own line sets the Node flags), not as `node bin/fanlake`.
  const child = spawn(bin, args, { env: { ...process.env, ...CREDENTIALS, CI: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let peakKb = 0;
  let cpuTicks = 0;
  const sample = () => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
      // Fields 14 and 15 of /proc/PID/stat (after the command name): utime and stime in ticks.
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
      cpuTicks = Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process has exited between samples.
    }
  };
  const timer = setInterval(sample, 50);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  return new Promise((resolvePromise) =>
    child.on('close', (code) => {
      clearInterval(timer);
      const probed = probeOut ? readProbe(probeOut) : undefined;
      resolvePromise({ code, wallMs: performance.now() - started, cpuMs: cpuTicks * 10, peakMb: peakKb / 1024, stdout, stderr, probe: probed });
    }),
  );
}

/** runMeasured for a run that must succeed: a failure throws, with the end of what it printed. */
export async function runOk(args, env, options) {
  const run = await runMeasured(args, env, options);
  if (run.code !== 0) throw new Error(`fanlake ${args.join(' ')} failed: ${run.stderr.slice(-2000)}`);
  return run;
}

/** The value after a command-line flag (`--scale 10`), or undefined. */
export function flag(name) {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
}

export function fmt(n, digits = 0) {
  return Number(n).toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

function readProbe(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  } finally {
    rmSync(join(path, '..'), { recursive: true, force: true });
  }
}

const seconds = (ms) => `${fmt(ms / 1000, 1)} s`;

/** Where a probed run's wall time and CPU went: one line. */
export function fmtPhases(probe, concurrency) {
  if (!probe) return 'not probed';
  return `start-up ${seconds(probe.startupMs)}, requests ${seconds(probe.requestsMs)} (${fmt(probe.meanInFlight, 1)} of ${concurrency} in flight on average), after the last response ${seconds(probe.tailMs)}; CPU main thread ${seconds(probe.cpuMs.main ?? 0)}, other threads (DuckDB, file I/O, GC helpers) ${seconds(probe.cpuMs.others ?? 0)}`;
}

/** A probed run's peak memory by kind: one line. */
export function fmtMemory(probe) {
  if (!probe) return 'not probed';
  const { heapMb, externalMb, nativeMb } = probe.memory;
  return `peaks: V8 heap ${fmt(heapMb)} MB, buffers outside it ${fmt(externalMb)} MB, native (Node, DuckDB) ${fmt(nativeMb)} MB`;
}

/** A profiled run's main thread by phase, largest first: one line. */
export function fmtProfile(probe) {
  if (!probe?.mainThreadMs) return 'not profiled';
  return Object.entries(probe.mainThreadMs)
    .sort((a, b) => b[1] - a[1])
    .map(([phase, ms]) => `${phase} ${seconds(ms)}`)
    .join(', ');
}

/** The rows of a build's table of models: model, status and seconds. */
export function modelRows(stdout) {
  const rows = [];
  for (const line of stdout.split('\n')) {
    const [model, , status, ...rest] = line.trim().split(/\s+/);
    if (model && status) rows.push({ model, status, seconds: Number(rest.at(-1)) || 0 });
  }
  return rows;
}

/** The slowest models of a build, "name seconds", slowest first: where a build's time goes. */
export function slowest(models, count = 6) {
  return [...models]
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, count)
    .map(({ model, seconds }) => `${model.replace(/^\w+\./, '')} ${fmt(seconds, 1)}`)
    .join(', ');
}
