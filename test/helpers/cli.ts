import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const REPO = resolve(import.meta.dirname, '../..');
const BIN = join(REPO, 'bin', 'fanlake');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI (built by `make setup`) with only the given environment plus PATH and TZ. */
export function runCli(args: string[], env: Record<string, string>, options: { cwd?: string } = {}): Promise<CliResult> {
  const child = spawnCli(args, env, options.cwd);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolvePromise) => child.on('close', (code, signal) => resolvePromise({ code, signal, stdout, stderr })));
}

/**
 * One DuckDB thread per command unless a test says otherwise: three test files run at once on
 * two cores, each starting commands, and a thread per core in each of them makes DuckDB's
 * threads wait on each other for CPU they then do not have. On the test clubs' few thousand rows
 * a query has little to run in parallel anyway.
 */
const TEST_THREADS = { FANLAKE_THREADS: '1' };

export function spawnCli(args: string[], env: Record<string, string>, cwd?: string, stdin: 'ignore' | 'pipe' = 'ignore'): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], {
    cwd: cwd ?? mkdtempSync(join(tmpdir(), 'fanlake-cwd-')),
    env: { PATH: process.env.PATH ?? '', TZ: 'UTC', CI: '1', ...TEST_THREADS, ...env },
    stdio: [stdin, 'pipe', 'pipe'],
  });
}

/** A spawned process whose output is collected, with waits on what it prints and on its end. */
export interface WatchedProcess {
  child: ChildProcess;
  readonly stdout: string;
  readonly stderr: string;
  /**
   * Resolves with the match once stdout, stderr or either (`both`) has matched `pattern`
   * (`count` times) since the process started; rejects if the process ends first.
   */
  waitFor(pattern: RegExp, stream?: 'stdout' | 'stderr' | 'both', count?: number): Promise<RegExpMatchArray>;
  done: Promise<CliResult>;
}

export function watch(child: ChildProcess): WatchedProcess {
  const text = { stdout: '', stderr: '', both: '' };
  const waiters: { pattern: RegExp; stream: 'stdout' | 'stderr' | 'both'; count: number; resolve: (match: RegExpMatchArray) => void }[] = [];
  const check = () => {
    for (const waiter of [...waiters]) {
      const all = new RegExp(waiter.pattern.source, waiter.pattern.flags.includes('g') ? waiter.pattern.flags : `${waiter.pattern.flags}g`);
      const matches = [...text[waiter.stream].matchAll(all)];
      if (matches.length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(matches[waiter.count - 1]!);
      }
    }
  };
  child.stdout!.on('data', (chunk) => ((text.stdout += chunk), (text.both += chunk), check()));
  child.stderr!.on('data', (chunk) => ((text.stderr += chunk), (text.both += chunk), check()));
  const done = new Promise<CliResult>((resolvePromise) => child.on('close', (code, signal) => resolvePromise({ code, signal, stdout: text.stdout, stderr: text.stderr })));
  return {
    child,
    get stdout() {
      return text.stdout;
    },
    get stderr() {
      return text.stderr;
    },
    waitFor(pattern, stream = 'stdout', count = 1) {
      return new Promise((resolvePromise, reject) => {
        waiters.push({ pattern, stream, count, resolve: resolvePromise });
        check();
        void done.then((result) => reject(new Error(`process ended (${result.code}) before ${stream} matched ${pattern}:\n${result.stdout}\n${result.stderr}`)));
      });
    },
    done,
  };
}

/**
 * The environment that sets a CLI child's wall clock `ms` ahead of the machine's
 * (test/helpers/clock-ahead.mjs): an `extract` run so sees every change a test made before
 * it, without the test waiting for the next whole second.
 */
export function clockAhead(ms: number): Record<string, string> {
  return { NODE_OPTIONS: `--import ${join(REPO, 'test', 'helpers', 'clock-ahead.mjs')}`, FANLAKE_TEST_CLOCK_AHEAD_MS: String(ms) };
}

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'fanlake-data-'));
}
