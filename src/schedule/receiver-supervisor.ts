import { backoffDelay } from '../core/backoff.js';
import { errorMessage } from '../core/errors.js';
import { redact } from '../core/secrets.js';
import { type Clock, systemClock } from './scheduler.js';

/** Longest wait between two restarts of a failing receiver. */
const MAX_RESTART_WAIT_MS = 5 * 60_000;

/**
 * A process event that fails the running receiver as if it had died. Only tests emit it
 * (test/helpers/kill-receiver.mjs, on SIGUSR2), so a test kills the receiver of a real
 * `fanlake schedule` at a moment it chooses instead of hoping for a crash.
 */
export const RECEIVER_FAULT_EVENT = 'fanlake:receiver-fault';

/** Why the receiver is down, from its first failure until it is ready again. */
export interface ReceiverOutage {
  since: Date;
  error: string;
}

export interface SuperviseReceiverOptions {
  /**
   * Runs the receiver until `stop` aborts (listen/run-receiver.ts `runReceiver`), calling
   * `onReady` once it records every change; it ending or throwing otherwise is a failure.
   */
  run(stop: AbortSignal, onReady: (listeningOn: string, subscriptionId: string) => void): Promise<void>;
  /** Ends supervision: the receiver stops cleanly and is not restarted. */
  stop: AbortSignal;
  /** Base of the exponential backoff between restarts, in ms (`listen.restartSeconds`). */
  restartMs: number;
  clock?: Clock;
  /** Injectable for tests; returns a number in `[0, 1)`. */
  random?: () => number;
  /**
   * Each failure, the first of an outage too, with the wait before the next start; awaited,
   * so the receiver's state file can say it is down before anything else reads it.
   */
  onFailure(failure: { error: string; attempt: number; waitMs: number; outage: ReceiverOutage }): Promise<void>;
  /** Once per outage, after its first failure (the alert). */
  onDown(outage: ReceiverOutage): void;
  /** Each time it is ready; `outage` is the one it ends, if any. */
  onUp(ready: { listeningOn: string; subscriptionId: string; outage?: ReceiverOutage }): void;
}

/**
 * Keeps the push receiver running beside the scheduler: when it cannot start or dies, it is
 * restarted with backoff, and an outage is told once (`onDown`) however many restarts fail,
 * and its end once (`onUp`). Never throws; resolves once `stop` aborted and the receiver stopped.
 */
export async function superviseReceiver(options: SuperviseReceiverOptions): Promise<void> {
  const clock = options.clock ?? systemClock;
  let outage: ReceiverOutage | undefined;
  let attempt = 0;
  while (!options.stop.aborted) {
    const attemptStop = new AbortController();
    const fault: { error?: string } = {};
    const onStop = () => attemptStop.abort();
    const onFault = (why?: unknown) => {
      fault.error = typeof why === 'string' ? why : 'the receiver was killed';
      attemptStop.abort();
    };
    options.stop.addEventListener('abort', onStop, { once: true });
    process.on(RECEIVER_FAULT_EVENT, onFault);
    let error: string | undefined;
    try {
      await options.run(attemptStop.signal, (listeningOn, subscriptionId) => {
        attempt = 0;
        options.onUp({ listeningOn, subscriptionId, ...(outage ? { outage } : {}) });
        outage = undefined;
      });
      if (!options.stop.aborted) error = fault.error ?? 'the receiver stopped on its own';
    } catch (thrown) {
      if (!options.stop.aborted) error = fault.error ?? redact(errorMessage(thrown));
    } finally {
      options.stop.removeEventListener('abort', onStop);
      process.off(RECEIVER_FAULT_EVENT, onFault);
    }
    if (error === undefined) break;

    attempt += 1;
    const ceiling = Math.min(MAX_RESTART_WAIT_MS, options.restartMs * 2 ** (attempt - 1));
    // Never less than half the ceiling: a full-jitter zero would restart in a tight loop.
    const waitMs = ceiling / 2 + backoffDelay(attempt, { baseDelayMs: options.restartMs, maxDelayMs: MAX_RESTART_WAIT_MS }, options.random) / 2;
    const first = outage === undefined;
    outage ??= { since: clock.now(), error };
    await options.onFailure({ error, attempt, waitMs, outage }).catch(() => undefined);
    if (first) options.onDown(outage);
    await clock.sleep(waitMs, options.stop);
  }
}
