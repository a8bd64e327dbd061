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
export function runCli(args: string[], env: Record<string, string>, options: { killAfterMs?: number; cwd?: string } = {}): Promise<CliResult> {
  const child = spawnCli(args, env, options.cwd);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  if (options.killAfterMs !== undefined) setTimeout(() => child.kill('SIGKILL'), options.killAfterMs);
  return new Promise((resolvePromise) => child.on('close', (code, signal) => resolvePromise({ code, signal, stdout, stderr })));
}

export function spawnCli(args: string[], env: Record<string, string>, cwd?: string): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], {
    cwd: cwd ?? mkdtempSync(join(tmpdir(), 'fanlake-cwd-')),
    env: { PATH: process.env.PATH ?? '', TZ: 'UTC', CI: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'fanlake-data-'));
}
