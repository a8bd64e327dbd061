import { mkdir, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod';
import { writeFileAtomic } from '../core/atomic-file.js';
import { pidAlive } from '../core/writer-lock.js';
import { listenDir } from './journal.js';

/** How often a running receiver says it is alive. */
export const HEARTBEAT_MS = 15_000;
/** A heartbeat older than this means the receiver is down (missed three beats and then some). */
export const HEARTBEAT_STALE_MS = 4 * HEARTBEAT_MS;

/**
 * `$DATA/listen/receiver.json`: what `fanlake listen` tells extraction. `coveredSince` is
 * when the receiver last became ready to record every change (listening, its subscription
 * enabled and validated): every change after it is in the journal as long as the receiver
 * stays up. A restart moves it, so a gap in coverage is seen as one. No secret is written
 * here: not the callback URL, which carries the path token.
 */
export const receiverStateSchema = z.object({
  version: z.literal(1),
  pid: z.number().int(),
  host: z.string(),
  /** The journal segment this receiver appends to. */
  segment: z.string(),
  listeningOn: z.string(),
  publicUrl: z.string(),
  subscriptionId: z.string().optional(),
  coveredSince: z.iso.datetime().optional(),
  heartbeatAt: z.iso.datetime(),
  /** Set when the receiver stopped on a signal; a killed one leaves its heartbeat to age. */
  stoppedAt: z.iso.datetime().optional(),
  /** The last delivery recorded (changes or an unreadable one), as of the last heartbeat. */
  lastDeliveryAt: z.iso.datetime().optional(),
  /**
   * Set by the process that keeps the receiver running (`fanlake schedule`) while it fails
   * to start or has died: since when, and why (the first failure of the outage).
   */
  failingSince: z.iso.datetime().optional(),
  failure: z.string().optional(),
});
export type ReceiverState = z.infer<typeof receiverStateSchema>;

function statePath(dataDir: string): string {
  return join(listenDir(dataDir), 'receiver.json');
}

export async function writeReceiverState(dataDir: string, state: ReceiverState): Promise<void> {
  await mkdir(listenDir(dataDir), { recursive: true });
  await writeFileAtomic(statePath(dataDir), `${JSON.stringify(state, null, 2)}\n`);
}

/**
 * Records that the receiver is down since `since` because of `failure`, keeping what the
 * last receiver wrote (its subscription, its segment). Without an earlier state it writes
 * one that says only that.
 */
export async function markReceiverFailing(dataDir: string, since: Date, failure: string, now = new Date()): Promise<void> {
  const previous = await readReceiverState(dataDir);
  const base: ReceiverState = previous ?? { version: 1, pid: process.pid, host: hostname(), segment: '', listeningOn: '', publicUrl: '', heartbeatAt: now.toISOString() };
  await writeReceiverState(dataDir, { ...base, stoppedAt: base.stoppedAt ?? now.toISOString(), failingSince: since.toISOString(), failure });
}

/** The receiver's state, undefined when `fanlake listen` never ran here (or its file is unreadable). */
export async function readReceiverState(dataDir: string): Promise<ReceiverState | undefined> {
  try {
    const parsed = receiverStateSchema.safeParse(JSON.parse(await readFile(statePath(dataDir), 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the receiver recorded every change since `since`, and if not, why. Up means: it
 * did not stop, its heartbeat is fresh, its process lives (checked on this host only: a pid
 * from elsewhere means nothing here), and it was covering already at `since`.
 */
export function coverageGap(state: ReceiverState | undefined, since: Date, now = new Date()): string | undefined {
  if (!state) return 'fanlake listen has not run with this data directory';
  if (state.failingSince) return `the receiver has been failing since ${state.failingSince} (${state.failure ?? 'unknown cause'})`;
  if (state.stoppedAt) return `the receiver stopped at ${state.stoppedAt}`;
  if (!state.coveredSince) return 'the receiver has not completed its subscription handshake';
  const age = now.getTime() - Date.parse(state.heartbeatAt);
  if (age > HEARTBEAT_STALE_MS) return `the receiver's last heartbeat is ${Math.round(age / 1000)} s old`;
  if (state.host === hostname() && !pidAlive(state.pid)) return `the receiver (pid ${state.pid}) is not running`;
  if (Date.parse(state.coveredSince) > since.getTime()) return `the receiver has covered changes only since ${state.coveredSince}, after the last full snapshot began`;
  return undefined;
}
