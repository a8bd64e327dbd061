import pLimit from 'p-limit';
import { Agent } from './undici-agent.js';
import { redact } from '../../core/secrets.js';
import { type ErrorContext, UsageError } from '../../core/errors.js';
import { backoffDelay, parseRetryAfter, sleep } from '../../core/backoff.js';
import {
  authError,
  gaveUpError,
  HttpError,
  type HttpTransientCode,
  networkError,
  type RequestFacts,
  redactedTarget,
  requestError,
  retryableStatusError,
  statusError,
  timeoutError,
  truncatedError,
} from './http-errors.js';
import { type GetAttempt, type GetReply, sendGet } from './get-attempt.js';
import { type DecodedBody, decodeBody, ERROR_BODY_LIMIT } from './response-body.js';
import { honoursRetryAfter, judgeStatus, networkErrorCode } from './retry-policy.js';
import { CODE } from '../../core/error-codes.js';

/** How a client talks to one or more APIs. */
export interface HttpClientOptions {
  /** Attempts in flight at once. Waiting between attempts does not hold a slot. */
  concurrency: number;
  /** Per attempt, from sending the request to the last byte of the body. */
  timeoutMs: number;
  /** Attempts per request, the first one included. */
  maxAttempts: number;
  /** Upper bound of the first backoff wait. Default 250. */
  baseDelayMs?: number;
  /** Cap of every wait, `Retry-After` included. Default 10000. */
  maxDelayMs?: number;
  userAgent: string;
  /** Called before each wait, so progress output can count retries. */
  onRetry?: (event: RetryEvent) => void;
}

/** One GET, as the extractors describe it. */
export interface JsonRequest {
  /**
   * Sent as given (lower-cased names); they override `accept` and `user-agent`. Read once
   * per object: share one object across requests, and do not change it once passed.
   */
  headers?: Record<string, string>;
  /** Where the request belongs (source, resource, window, page); goes into errors and events. */
  context?: ErrorContext;
  /** What to check on a 401, e.g. "check FANLAKE_TICKETING_TOKEN". Never the credential. */
  credentialHint?: string;
  /** Aborting rejects with the signal's reason, during an attempt or a wait. */
  signal?: AbortSignal;
  /** Statuses the API documents as normal answers (e.g. 404); returned instead of thrown. */
  acceptStatuses?: number[];
  /**
   * Turns a received body into `body`; default `decodeBody` (JSON.parse when the content
   * type says JSON). A body it reports as not decodable is retried like a truncated one.
   */
  decode?: (buffer: Buffer, contentType: string | string[] | undefined, status: number) => DecodedBody;
}

export interface JsonResponse {
  status: number;
  /** Parsed JSON when the content type says JSON, otherwise the raw text; `null` for 204. */
  body: unknown;
  /** Attempts it took, 1 when the first one succeeded. */
  attempts: number;
  /** Size of the body as received. */
  bytes: number;
  /** The body as received, for callers that keep parts of it as they came. */
  raw: Buffer;
}

/** A failed attempt that will be retried after `delayMs`. */
export interface RetryEvent {
  /** The attempt that failed, starting at 1. */
  attempt: number;
  delayMs: number;
  reason: HttpTransientCode;
  status?: number;
  /** Path and query, secrets masked. */
  url: string;
  context: ErrorContext;
}

/** Counters since the client was created, for the run summary. */
export interface RetryStats {
  requests: number;
  attempts: number;
  retries: number;
  gaveUp: number;
}

export interface HttpClient {
  /**
   * GETs `url` and decodes the body, retrying transient failures with backoff.
   *
   * @throws {HttpError} E_HTTP_STATUS, E_HTTP_AUTH, E_HTTP_GAVE_UP or E_HTTP_REQUEST.
   */
  getJson(url: string | URL, request?: JsonRequest): Promise<JsonResponse>;
  /** A snapshot of the counters. */
  stats(): RetryStats;
  /** Waits for requests in flight, then closes the pooled sockets. Safe to call twice. */
  close(): Promise<void>;
}

/** A body received in full; decoded after the attempt gives its slot back. */
interface ReceivedBody {
  status: number;
  buffer: Buffer;
  contentType: string | string[] | undefined;
}

type AttemptResult = { ok: true; received: ReceivedBody } | { ok: false; error: HttpError; retryAfterMs?: number };

type DecodedResult = { ok: true; response: Omit<JsonResponse, 'attempts'> } | Extract<AttemptResult, { ok: false }>;

/** The received body decoded (JSON, or text); JSON that does not parse is a truncated answer, worth retrying. */
function decodeReceived({ status, buffer, contentType }: ReceivedBody, facts: RequestFacts, decode = decodeBody): DecodedResult {
  const decoded = decode(buffer, contentType, status);
  if (!decoded.ok) return { ok: false, error: truncatedError(facts, decoded.reason) };
  return { ok: true, response: { status, body: decoded.value, bytes: buffer.length, raw: buffer } };
}

/**
 * Creates the HTTP client both extractors share: one keep-alive pool sized to the
 * concurrency, one retry policy, one place where errors get their codes.
 *
 * @example
 * const http = createHttpClient({ concurrency: 4, timeoutMs: 30_000, maxAttempts: 5, userAgent: 'fanlake/0.1' });
 * try {
 *   const { body } = await http.getJson(`${base}/v1/tickets?page=1`, {
 *     headers: { authorization: `Bearer ${token}` },
 *     credentialHint: 'check FANLAKE_TICKETING_TOKEN',
 *     context: { source: 'ticketing', resource: 'tickets', page: 1 },
 *   });
 * } finally {
 *   await http.close();
 * }
 */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  checkOptions(options);
  const { concurrency, timeoutMs, maxAttempts, userAgent, onRetry } = options;
  const backoff = { baseDelayMs: options.baseDelayMs ?? 250, maxDelayMs: options.maxDelayMs ?? 10_000 };
  const agent = new Agent({ connections: concurrency });
  const limit = pLimit(concurrency);
  const stats: RetryStats = { requests: 0, attempts: 0, retries: 0, gaveUp: 0 };
  const headersOf = sharedHeaders(userAgent);
  let closed = false;

  async function runAttempt(url: URL, request: JsonRequest, get: Omit<GetAttempt, 'url'>, facts: RequestFacts): Promise<AttemptResult> {
    request.signal?.throwIfAborted();
    const outcome = await sendGet({ ...get, url });
    if (outcome.ok) return judgeResponse(outcome, request, facts);
    const { error } = outcome;
    if (request.signal?.aborted) throw request.signal.reason;
    if (outcome.timedOut) return { ok: false, error: timeoutError(facts, timeoutMs, outcome.gotHeaders ? 'body' : 'headers') };
    const code = networkErrorCode(error);
    if (code === undefined) throw requestError(facts, redact(errorText(error)), error);
    const failure = outcome.gotHeaders
      ? truncatedError(facts, `connection broke while reading (${code})`, error)
      : networkError(facts, code, error);
    return { ok: false, error: failure };
  }

  function judgeResponse(reply: GetReply, request: JsonRequest, facts: RequestFacts): AttemptResult {
    const { status, body } = reply;
    const verdict = judgeStatus(status, request.acceptStatuses);
    if (verdict === 'success') {
      return { ok: true, received: { status, buffer: body, contentType: reply.headers['content-type'] } };
    }
    const text = body.toString('utf8');
    switch (verdict) {
      case 'retry': {
        const retryAfterMs = honoursRetryAfter(status)
          ? parseRetryAfter(reply.headers['retry-after'], backoff.maxDelayMs)
          : undefined;
        return { ok: false, error: retryableStatusError(facts, status, text), retryAfterMs };
      }
      case 'auth':
        return { ok: false, error: authError(facts, text, request.credentialHint) };
      case 'fail':
        return { ok: false, error: statusError(facts, status, text) };
    }
  }

  async function getJson(input: string | URL, request: JsonRequest = {}): Promise<JsonResponse> {
    const url = parseUrl(input, request.context);
    if (closed) throw requestError({ url, context: request.context, attempts: 0 }, 'the HTTP client is closed');
    stats.requests += 1;
    const accepted = request.acceptStatuses;
    const get = {
      dispatcher: agent,
      headers: headersOf(request),
      timeoutMs,
      wholeBody: (status: number) => judgeStatus(status, accepted) === 'success',
      errorBodyLimit: ERROR_BODY_LIMIT,
      signal: request.signal,
    };
    for (let attempt = 1; ; attempt += 1) {
      const facts: RequestFacts = { url, context: request.context, attempts: attempt };
      stats.attempts += 1;
      // The slot is held for the attempt only; the wait below happens outside the limiter,
      // and so does parsing the body, so the next request need not wait for it.
      const attempted = await limit(() => runAttempt(url, request, get, facts));
      const result = attempted.ok ? decodeReceived(attempted.received, facts, request.decode) : attempted;
      if (result.ok) return { ...result.response, attempts: attempt };
      const { error } = result;
      if (!error.retryable) throw error;
      if (attempt >= maxAttempts) {
        stats.gaveUp += 1;
        throw gaveUpError(facts, error);
      }
      const delayMs = result.retryAfterMs ?? backoffDelay(attempt, backoff);
      stats.retries += 1;
      onRetry?.({
        attempt,
        delayMs,
        reason: error.code as HttpTransientCode,
        status: error.status,
        url: redactedTarget(url),
        context: request.context ?? {},
      });
      await sleep(delayMs, request.signal);
    }
  }

  return {
    getJson,
    stats: () => ({ ...stats }),
    async close() {
      // Idempotent: undici throws when a closed agent is closed again.
      if (closed) return;
      closed = true;
      await agent.close();
    },
  };
}

function headersFor(request: JsonRequest, userAgent: string): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': userAgent };
  for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value;
  return headers;
}

/**
 * `headersFor`, made once per headers object a caller passes: the extractors share one
 * object across a resource's requests (a fan-out makes one per profile). A caller must not
 * change a headers object it has passed.
 */
function sharedHeaders(userAgent: string): (request: JsonRequest) => Record<string, string> {
  const made = new WeakMap<Record<string, string>, Record<string, string>>();
  const none = headersFor({}, userAgent);
  return (request) => {
    if (request.headers === undefined) return none;
    let headers = made.get(request.headers);
    if (headers === undefined) {
      headers = headersFor(request, userAgent);
      made.set(request.headers, headers);
    }
    return headers;
  };
}

function parseUrl(input: string | URL, context: ErrorContext | undefined): URL {
  try {
    return new URL(input);
  } catch {
    // Node's error keeps the raw input (maybe with a token in it), so it is not kept as the cause.
    const shown = redact(String(input));
    throw new HttpError(CODE.E_HTTP_REQUEST, `invalid URL ${shown}`, {
      context: { ...context, url: shown, attempts: 0 },
    });
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function checkOptions(options: HttpClientOptions): void {
  const positiveIntegers = ['concurrency', 'maxAttempts'] as const;
  for (const key of positiveIntegers) {
    if (!Number.isInteger(options[key]) || options[key] < 1) {
      throw new UsageError(`HTTP client option ${key} must be a positive integer, got ${options[key]}`);
    }
  }
  if (!(options.timeoutMs > 0)) {
    throw new UsageError(`HTTP client option timeoutMs must be positive, got ${options.timeoutMs}`);
  }
}
