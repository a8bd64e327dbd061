import { createHash } from 'node:crypto';
import { watch } from 'node:fs';
import { cp, mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SimulatorOptionsInput } from '../../src/simulator/options.js';
import { cliEnv } from '../warehouse/identity-fixture.js';
import { runCli, tempDataDir } from './cli.js';
import { startTestSimulator } from './simulator.js';

/**
 * A warehouse tests read: what the real CLI makes of the simulator with these options
 * (`extract`, `load`, `build`). Two files that ask for the same one share its build, and
 * warehouses of the same simulator and settings that differ only in their build (its
 * `--select`, the club folder) share their extract and load.
 */
export interface WarehouseSpec {
  /** The simulator's scale, seed, noise and the rest; its clock is pinned (TEST_NOW) unless `now` says otherwise. */
  simulator: SimulatorOptionsInput & { scale: number; seed: number };
  /** Settings of every command, as environment variables (`FANLAKE_ENGAGEMENT_LOYALTY`, ...). */
  env?: Record<string, string>;
  /** `build` arguments (`--select ...`); none builds every model; `false` stops after `load`. */
  build?: readonly string[] | false;
  /**
   * The club folder the build reads (FANLAKE_CLUB_DIR), file name to text: written to `club/` in
   * the data dir ({@link clubDirOf}), which later commands on the copy must be pointed at. None
   * builds with fanlake's defaults.
   */
  club?: Readonly<Record<string, string>>;
}

/** Longest wait for another file's build of the same warehouse. */
const WAIT_MS = 600_000;

/**
 * A data dir of its own holding the warehouse `spec` describes. The first file of a test run
 * that asks builds it through the real CLI into the run's folder of warehouses
 * (test/global-setup.ts), under a lock so that workers asking at once build it once; every
 * caller gets a copy, which it may change as it likes. A simulator started with the same
 * options (`startTestSimulator(spec.simulator)`) serves the same records and truth.
 * Unpinned clocks (`now: undefined`) make data that differs run to run and are refused.
 */
export async function sharedWarehouse(spec: WarehouseSpec): Promise<string> {
  if ('now' in spec.simulator && spec.simulator.now === undefined) throw new Error('a shared warehouse needs a pinned clock: its data must be the same for every file');
  if (spec.build === false && spec.club) throw new Error('a club folder is read by the build: a warehouse without one needs none');
  const built = await builtWarehouse(spec);
  const dataDir = tempDataDir();
  await cp(built, dataDir, { recursive: true });
  return dataDir;
}

/** The club folder of a shared warehouse's copy made with `club`, for FANLAKE_CLUB_DIR. */
export function clubDirOf(dataDir: string): string {
  return join(dataDir, 'club');
}

/** The folder of the built warehouse, building it first unless this run has. */
async function builtWarehouse(spec: WarehouseSpec): Promise<string> {
  const root = process.env.FANLAKE_TEST_WAREHOUSES;
  if (root === undefined) throw new Error('FANLAKE_TEST_WAREHOUSES is not set: run the tests through vitest (test/global-setup.ts sets it)');
  const key = specKey(spec);
  const done = join(root, key);
  const lock = join(root, `${key}.lock`);
  await mkdir(root, { recursive: true });
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    if (await exists(done)) return done;
    try {
      await mkdir(lock);
    } catch {
      if (Date.now() > deadline) throw new Error(`waited ${WAIT_MS / 1000} s for another file's build of ${key}`);
      await nextChangeIn(root, lock, deadline - Date.now());
      continue;
    }
    try {
      const building = join(root, `${key}.building`);
      await build(spec, building);
      await rename(building, done);
      return done;
    } finally {
      await rm(lock, { recursive: true, force: true });
    }
  }
}

/**
 * Resolves at the next change in `root` (another file's lock removed, its build renamed into
 * place), at once when `lock` is already gone, or after `ms` (the caller's deadline): an event
 * to wait for rather than a poll. The watcher starts before the check, so a release between the
 * caller's failed mkdir and this call is not missed.
 */
function nextChangeIn(root: string, lock: string, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const watcher = watch(root);
    const timer = setTimeout(done, Math.max(0, ms));
    function done(): void {
      clearTimeout(timer);
      watcher.close();
      resolve();
    }
    watcher.on('change', done);
    watcher.on('error', (error) => {
      clearTimeout(timer);
      watcher.close();
      reject(error);
    });
    stat(lock).catch(done);
  });
}

/**
 * Extracts and loads into `dataDir`, or, for a built warehouse, copies the shared loaded one
 * of the same simulator and settings and builds on it.
 */
async function build(spec: WarehouseSpec, dataDir: string): Promise<void> {
  await rm(dataDir, { recursive: true, force: true });
  const loaded = spec.build === false ? undefined : await builtWarehouse({ simulator: spec.simulator, env: spec.env, build: false });
  if (loaded) await cp(loaded, dataDir, { recursive: true });
  else await mkdir(dataDir, { recursive: true });
  const sim = await startTestSimulator(spec.simulator);
  try {
    const env = { ...cliEnv(sim, dataDir), ...spec.env };
    if (spec.club) {
      await mkdir(clubDirOf(dataDir));
      for (const [file, text] of Object.entries(spec.club)) await writeFile(join(clubDirOf(dataDir), file), text);
      env.FANLAKE_CLUB_DIR = clubDirOf(dataDir);
    }
    const steps = spec.build === false ? [['extract'], ['load']] : [['build', ...(spec.build ?? [])]];
    for (const args of steps) {
      const result = await runCli(args, env);
      if (result.code !== 0) throw new Error(`building the shared warehouse ${specKey(spec)}: fanlake ${args.join(' ')} exited ${result.code}\n${result.stdout}\n${result.stderr}`);
    }
    await writeFile(join(dataDir, 'shared-warehouse.json'), `${JSON.stringify(spec, null, 2)}\n`);
  } finally {
    await sim.close();
  }
}

/** A folder name that differs whenever the warehouse would. */
function specKey(spec: WarehouseSpec): string {
  const { scale, seed, ...rest } = spec.simulator;
  const extras = [
    ...Object.entries(rest).sort(([a], [b]) => a.localeCompare(b)).map(([name, value]) => `${name}-${String(value)}`),
    ...Object.entries(spec.env ?? {}).sort(([a], [b]) => a.localeCompare(b)).map(([name, value]) => `${name}-${value}`),
    ...(spec.build === false ? ['loaded'] : (spec.build ?? [])),
    ...(spec.club ? [`club-${createHash('sha256').update(JSON.stringify(Object.entries(spec.club).sort())).digest('hex').slice(0, 12)}`] : []),
  ];
  return [`scale-${scale}`, `seed-${seed}`, ...extras].join('_').replace(/[^A-Za-z0-9.+-]+/g, '_');
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
