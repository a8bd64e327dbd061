/**
 * What counts as transient. This is the only place that decides whether a status or a
 * thrown error is worth another attempt, so the client and its tests agree by construction.
 */

/** Statuses that say "try again later": rate limiting and server or gateway trouble. */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

/** Statuses whose `Retry-After` header we honour instead of our own backoff. */
const RETRY_AFTER_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/**
 * Error codes (Node sockets, DNS and undici) of a connection that failed or broke. They say
 * nothing about the request itself, so the same request may well succeed on a fresh socket.
 */
const TRANSIENT_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);

/** How the client should treat a response status. */
export type StatusVerdict = 'success' | 'retry' | 'auth' | 'fail';

/**
 * Judges a response status. `accepted` lists statuses the caller documents as normal answers
 * (for example 404 for "no such member"); they win over every other rule.
 */
export function judgeStatus(status: number, accepted: readonly number[] = []): StatusVerdict {
  if ((status >= 200 && status < 300) || accepted.includes(status)) return 'success';
  if (RETRYABLE_STATUSES.has(status)) return 'retry';
  if (status === 401) return 'auth';
  return 'fail';
}

/** Whether a `Retry-After` header on this status tells us how long to wait. */
export function honoursRetryAfter(status: number): boolean {
  return RETRY_AFTER_STATUSES.has(status);
}

/**
 * Whether a thrown error is a broken or refused connection. Walks `cause` and the `errors` of
 * an AggregateError, because Node wraps connect failures when it tries several addresses.
 */
export function isTransientNetworkError(error: unknown): boolean {
  return networkErrorCode(error) !== undefined;
}

/** The first transient error code found in the error, its causes, or its aggregated errors. */
export function networkErrorCode(error: unknown, depth = 0): string | undefined {
  if (typeof error !== 'object' || error === null || depth > 5) return undefined;
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && TRANSIENT_ERROR_CODES.has(code)) return code;
  const nested = [cause, ...(Array.isArray(errors) ? errors : [])];
  for (const inner of nested) {
    const found = networkErrorCode(inner, depth + 1);
    if (found) return found;
  }
  return undefined;
}
