/**
 * How long to wait between attempts: exponential backoff with full jitter, unless the server
 * said when to come back (`Retry-After`).
 */

/** Bounds of the exponential backoff, in milliseconds. */
export interface BackoffOptions {
  /** Upper bound of the first wait; doubles with each failed attempt. */
  baseDelayMs: number;
  /** No wait is ever longer than this. */
  maxDelayMs: number;
}

/**
 * Full jitter: a uniform random wait in `[0, min(max, base * 2^(attempt-1))]`. Randomising
 * the whole range spreads clients that failed together, so they do not retry in lockstep.
 *
 * @param attempt the attempt that just failed, starting at 1.
 * @param random injectable for tests; returns a number in `[0, 1)`.
 */
export function backoffDelay(
  attempt: number,
  { baseDelayMs, maxDelayMs }: BackoffOptions,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/**
 * Parses a `Retry-After` header: delay-seconds (`"120"`) or an HTTP date. Returns the wait
 * in milliseconds, capped at `maxMs` so a server cannot park a run for hours, or `undefined`
 * when the header is missing or unreadable (the caller then falls back to backoff).
 */
export function parseRetryAfter(
  value: string | string[] | undefined,
  maxMs: number,
  now: number = Date.now(),
): number | undefined {
  const raw = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!raw) return undefined;
  let ms: number;
  if (/^\d+$/.test(raw)) {
    ms = Number(raw) * 1000;
  } else {
    // Date.parse accepts odd inputs such as "1.5"; an HTTP date always names a day or month.
    const at = /[a-z]/i.test(raw) ? Date.parse(raw) : Number.NaN;
    if (Number.isNaN(at)) return undefined;
    ms = Math.max(0, at - now);
  }
  return Math.min(ms, maxMs);
}

/** Waits `ms`; rejects with the signal's reason as soon as the caller aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
