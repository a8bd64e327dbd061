import { execFileSync, spawn } from 'node:child_process';
import { chmod, lstat, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/simulator.js';
import { REPO, runCli, tempDataDir } from '../helpers/cli.js';
import { sharedWarehouse } from '../helpers/shared-warehouse.js';
import { startTestSimulator } from '../helpers/simulator.js';
import { cliEnv } from '../warehouse/identity-fixture.js';

const SIMULATOR = { scale: 0.02, seed: 42 };

/** Every file and folder under `root` (itself included) whose mode lets group or others in, with its mode. */
async function openToOthers(root: string): Promise<string[]> {
  const found: string[] = [];
  const visit = async (path: string) => {
    const stats = await lstat(path);
    if (!stats.isSymbolicLink() && (stats.mode & 0o077) !== 0) found.push(`${path} ${(stats.mode & 0o777).toString(8)}`);
    if (stats.isDirectory()) for (const entry of await readdir(path)) await visit(join(path, entry));
  };
  await visit(root);
  return found;
}

/** The real CLI started by a shell whose umask (0o022, a common default) would leave files 0644. */
function runCliUnderLooseUmask(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn('sh', ['-c', 'umask 022 && exec "$@"', 'sh', process.execPath, join(REPO, 'bin', 'fanlake'), ...args], {
    cwd: tempDataDir(),
    env: { PATH: process.env.PATH ?? '', TZ: 'UTC', FANLAKE_THREADS: '1', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

let sim: Simulator;
const cleanup: string[] = [];

beforeAll(async () => {
  sim = await startTestSimulator(SIMULATOR);
});

afterAll(async () => {
  await sim?.close();
  for (const path of cleanup) await rm(path, { recursive: true, force: true });
});

describe('files only their owner reads', () => {
  it('creates the data dir, raw runs, the warehouse, run records and the club folder readable by their owner alone, whatever the umask', async () => {
    const dataDir = join(tempDataDir(), 'data');
    const clubDir = join(dataDir, '..', 'club');
    cleanup.push(join(dataDir, '..'));
    const env = { ...cliEnv(sim, dataDir), FANLAKE_CLUB_DIR: clubDir };
    for (const args of [['extract', '--source', 'ticketing', '--resource', 'users'], ['load'], ['build', '--select', 'stg_ticketing__users']]) {
      const result = await runCliUnderLooseUmask(args, env);
      expect(result.code, `${args.join(' ')}\n${result.stderr}`).toBe(0);
    }
    expect((await readdir(join(dataDir, 'raw', 'ticketing', 'users'))).length).toBeGreaterThan(0);
    expect((await readdir(clubDir)).length).toBeGreaterThan(0);
    expect(await openToOthers(dataDir)).toEqual([]);
    expect(await openToOthers(clubDir)).toEqual([]);
  });

  it('doctor warns once per area others can read, with the command that fixes it, and its exit status does not change', async () => {
    const dataDir = await sharedWarehouse({ simulator: SIMULATOR });
    cleanup.push(dataDir);
    // What the test's own helpers wrote there (at the test's umask) is made its owner's first.
    execFileSync('chmod', ['-R', 'go-rwx', dataDir]);
    const clubDir = join(tempDataDir(), 'club');
    cleanup.push(join(clubDir, '..'));
    await mkdir(clubDir, { mode: 0o755 });
    await writeFile(join(clubDir, 'notes.txt'), 'shared\n', { mode: 0o644 });
    await chmod(clubDir, 0o755);
    await chmod(dataDir, 0o755);
    await chmod(join(dataDir, 'warehouse.duckdb'), 0o644);
    const runDirs = await readdir(join(dataDir, 'raw', 'ticketing', 'users'));
    await chmod(join(dataDir, 'raw', 'ticketing', 'users', runDirs[0]!), 0o755);
    const env = { ...cliEnv(sim, dataDir), FANLAKE_CLUB_DIR: clubDir };

    const before = await runCli(['doctor'], env);
    const warnings = before.stderr.split('\n').filter((line) => line.includes('readable by others'));
    expect(warnings.map((line) => /^warning: ([a-z ]+):/.exec(line)?.[1])).toEqual(['data dir', 'warehouse', 'raw files', 'club folder']);
    for (const line of warnings) execFileSync('sh', ['-c', line.split('; fix: ')[1]!]);

    const after = await runCli(['doctor'], env);
    expect(after.stderr).not.toContain('readable by others');
    expect(after.code).toBe(before.code);
    expect(await openToOthers(dataDir)).toEqual([]);
    const json = JSON.parse((await runCli(['doctor', '--format', 'json'], env)).stdout) as { looseFiles: unknown[] };
    expect(json.looseFiles).toEqual([]);
  });
});
