import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { link, mkdir, open, readFile, rename, stat, unlink, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod';
import { FanlakeError } from './errors.js';
import { CODE } from './error-codes.js';

/** The lock file of a data directory; its content names the holder. */
export const LOCK_FILE = '.writer.lock';

export const LOCK_ERROR_CODES = {
  /** Another live writer holds the data directory. */
  held: CODE.E_LOCK_HELD,
} as const;

const holderSchema = z.object({
  command: z.string(),
  pid: z.number().int(),
  host: z.string(),
  since: z.string(),
});

/** Who holds a data directory: what the lock file says. */
export type LockHolder = z.infer<typeof holderSchema>;

export interface WriterLockOptions {
  /** What the holder is doing, shown to whoever is kept out (e.g. `extract`, `schedule: nightly`). */
  command: string;
  /** How long to wait for a live holder before giving up; 0 gives up at once. */
  waitSeconds?: number;
  /**
   * A lock from another host can't be checked by pid; it is taken over only when its holder
   * has not touched it for this long. The holder touches it every `staleSeconds / 10`.
   */
  staleSeconds?: number;
  /** Told once when the lock is held and the caller waits, and when a dead holder's lock is taken over. */
  onNotice?: (message: string) => void;
  /** Interrupts a wait (the scheduler's shutdown). */
  signal?: AbortSignal;
}

/** A held lock; `release` is idempotent. */
export interface WriterLock {
  readonly holder: LockHolder;
  release(): Promise<void>;
}

const DEFAULT_STALE_SECONDS = 600;
const POLL_MS = 200;

/**
 * Takes the one writer lock of `dataDir`. The lock is a file created exclusively (a hard link
 * that fails when the name exists), which works on local and network file systems alike; its content names the holder so a
 * second writer can say who keeps it out.
 *
 * A holder that died (kill -9, reboot) leaves the file behind: on the same host a dead pid
 * proves it, on another host only an age without heartbeat does, since its pids mean nothing here.
 *
 * @throws FanlakeError `E_LOCK_HELD` (context: holder) when a live holder keeps it past `waitSeconds`.
 */
export async function acquireWriterLock(dataDir: string, options: WriterLockOptions): Promise<WriterLock> {
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE);
  const staleSeconds = options.staleSeconds ?? DEFAULT_STALE_SECONDS;
  const holder: LockHolder = { command: options.command, pid: process.pid, host: hostname(), since: new Date().toISOString() };
  const deadline = Date.now() + (options.waitSeconds ?? 0) * 1000;
  let toldWaiting = false;

  for (;;) {
    if (await tryCreate(path, holder)) return heldLock(path, holder, staleSeconds);
    const current = await readHolder(path);
    if (current === undefined) continue; // released between our attempt and the read
    const verdict = await judge(path, current, staleSeconds);
    if (verdict.stale) {
      if (await takeOver(path, current)) options.onNotice?.(`taking over the lock of ${describeHolder(current.holder)}: ${verdict.why}`);
      continue;
    }
    if (Date.now() >= deadline || options.signal?.aborted) {
      throw new FanlakeError(LOCK_ERROR_CODES.held, `${dataDir} is being written by ${describeHolder(current.holder)}${verdict.why ? ` (${verdict.why})` : ''}; try again later or pass --wait SECONDS`, {
        context: { holder: current.holder, dataDir },
      });
    }
    if (!toldWaiting) {
      options.onNotice?.(`waiting for ${describeHolder(current.holder)} to finish writing ${dataDir}`);
      toldWaiting = true;
    }
    await sleep(Math.min(POLL_MS, Math.max(0, deadline - Date.now())), options.signal);
  }
}

/** Runs `fn` holding the data directory's writer lock, and releases it however `fn` ends. */
export async function withWriterLock<T>(dataDir: string, options: WriterLockOptions, fn: () => Promise<T>): Promise<T> {
  const lock = await acquireWriterLock(dataDir, options);
  try {
    return await fn();
  } finally {
    await lock.release();
  }
}

/** The current holder of `dataDir`'s lock, if any (for messages of readers that wait). */
export function currentHolder(dataDir: string): LockHolder | undefined {
  try {
    return parseHolder(readFileSync(join(dataDir, LOCK_FILE), 'utf8'))?.holder;
  } catch {
    return undefined;
  }
}

/** `extract (pid 4242 on host db1, since 2026-11-23T10:00:00Z)` */
export function describeHolder(holder: LockHolder): string {
  return `${holder.command} (pid ${holder.pid} on ${holder.host}, since ${holder.since})`;
}

interface HolderRecord {
  holder: LockHolder;
  /** The exact text, so a take-over removes only the lock it judged. */
  text: string;
}

/**
 * Creates the lock with its content in one step: the holder is written to a file of its own,
 * then hard-linked to the lock's name, which fails if the lock exists. So a lock file is never
 * seen empty, and a process stopped at any point either holds a complete lock or none.
 */
async function tryCreate(path: string, holder: LockHolder): Promise<boolean> {
  const draft = `${path}.${process.pid}.${randomUUID()}.draft`;
  const handle = await open(draft, 'w');
  try {
    await handle.writeFile(`${JSON.stringify(holder)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(draft, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(draft).catch(() => undefined);
  }
}

/**
 * Removes `dataDir`'s lock if this process holds it, synchronously: for signal handlers,
 * which may run while the lock is being taken and cannot wait for a promise.
 */
export function releaseIfOursSync(dataDir: string): void {
  const path = join(dataDir, LOCK_FILE);
  try {
    const record = parseHolder(readFileSync(path, 'utf8'));
    if (record && record.holder.pid === process.pid && record.holder.host === hostname()) unlinkSync(path);
  } catch {
    // No lock, or not ours to remove.
  }
  try {
    for (const name of readdirSync(dataDir)) if (name.startsWith(`${LOCK_FILE}.${process.pid}.`)) unlinkSync(join(dataDir, name));
  } catch {
    // No drafts left.
  }
}

async function readHolder(path: string): Promise<HolderRecord | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  // Not written by this version (locks appear complete): judged by its age alone.
  return parseHolder(text) ?? { holder: { command: 'unknown (unreadable lock file)', pid: 0, host: '?', since: '?' }, text };
}

function parseHolder(text: string): HolderRecord | undefined {
  try {
    const parsed = holderSchema.safeParse(JSON.parse(text));
    return parsed.success ? { holder: parsed.data, text } : undefined;
  } catch {
    return undefined;
  }
}

async function judge(path: string, record: HolderRecord, staleSeconds: number): Promise<{ stale: boolean; why?: string }> {
  const { holder } = record;
  if (holder.host === hostname() && holder.pid > 0) {
    return pidAlive(holder.pid) ? { stale: false } : { stale: true, why: `process ${holder.pid} is gone` };
  }
  const ageSeconds = await secondsSinceTouched(path);
  if (ageSeconds === undefined) return { stale: false };
  if (ageSeconds >= staleSeconds) return { stale: true, why: `no heartbeat for ${Math.round(ageSeconds)} s (limit ${staleSeconds} s, FANLAKE_LOCK_STALE_SECONDS)` };
  return { stale: false, why: `another host: taken over only after ${staleSeconds} s without a heartbeat, ${Math.round(ageSeconds)} s so far` };
}

/** Whether a process of this host lives (one that belongs to another user counts). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function secondsSinceTouched(path: string): Promise<number | undefined> {
  try {
    return (Date.now() - (await stat(path)).mtimeMs) / 1000;
  } catch {
    return undefined;
  }
}

/**
 * Removes a stale lock, unless someone replaced it meanwhile. Renaming first makes the check
 * and the removal one step: of two writers taking over at once, one rename wins, and the
 * loser (ENOENT) simply tries to create the lock again. If what was renamed is not the lock
 * that was judged (a third writer took it in between), it is put back.
 */
async function takeOver(path: string, judged: HolderRecord): Promise<boolean> {
  const aside = `${path}.stale-${process.pid}`;
  try {
    await rename(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  const text = await readFile(aside, 'utf8').catch(() => '');
  if (text !== judged.text) {
    await rename(aside, path).catch(() => undefined);
    return false;
  }
  await unlink(aside).catch(() => undefined);
  return true;
}

function heldLock(path: string, holder: LockHolder, staleSeconds: number): WriterLock {
  // The heartbeat lets writers on other hosts tell a long run from a dead one.
  const heartbeat = setInterval(() => {
    const now = new Date();
    utimes(path, now, now).catch(() => undefined);
  }, Math.max(1, staleSeconds / 10) * 1000);
  heartbeat.unref();
  let released = false;
  return {
    holder,
    async release() {
      if (released) return;
      released = true;
      clearInterval(heartbeat);
      const current = await readHolder(path);
      // Only our own lock: after a take-over by mistake (a frozen process), the new holder's stays.
      if (current && current.holder.pid === holder.pid && current.holder.since === holder.since && current.holder.host === holder.host) await unlink(path).catch(() => undefined);
    },
  };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}
