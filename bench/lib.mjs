// Shared helpers of the benchmarks: a simulator in a child process, a command timed with
// its peak RSS, and a plain-fetch baseline. Figures are ratios measured in one run.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
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
 * process (VmHWM) and output.
 */
export function runMeasured(args, env) {
  const started = performance.now();
  // As a user runs it (bin/fanlake's own line sets the Node flags), not as `node bin/fanlake`.
  const child = spawn(BIN, args, { env: { ...process.env, ...CREDENTIALS, CI: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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
      resolvePromise({ code, wallMs: performance.now() - started, cpuMs: cpuTicks * 10, peakMb: peakKb / 1024, stdout, stderr });
    }),
  );
}

export function fmt(n, digits = 0) {
  return Number(n).toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}
