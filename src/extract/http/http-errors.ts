import { STATUS_CODES } from 'node:http';
import { redact } from '../../core/secrets.js';
import { type ErrorContext, FanlakeError } from '../../core/errors.js';
import { CODE } from '../../core/error-codes.js';

/** Codes that end a request: the caller sees one of these thrown from `getJson`. */
export const HTTP_FINAL_CODES = [
  /** A status that retrying cannot fix (400, 403, 404, other 4xx, 501, 3xx). */
  CODE.E_HTTP_STATUS,
  /** 401: the credential is missing, wrong or expired. */
  CODE.E_HTTP_AUTH,
  /** Every attempt failed transiently; `cause` is the last failure. */
  CODE.E_HTTP_GAVE_UP,
  /** The request could not be sent at all (bad URL or header, client closed). */
  CODE.E_HTTP_REQUEST,
] as const;

/**
 * Codes of one failed attempt that is worth another try. Callers meet them as the `reason`
 * of a retry event and as the `cause` of E_HTTP_GAVE_UP, never thrown on their own.
 */
export const HTTP_TRANSIENT_CODES = [
  /** 429, 500, 502, 503 or 504. */
  CODE.E_HTTP_RETRYABLE_STATUS,
  /** No complete response within the per-attempt timeout. */
  CODE.E_HTTP_TIMEOUT,
  /** Connection refused, reset or broken before the response headers arrived. */
  CODE.E_HTTP_NETWORK,
  /** The body broke off mid-stream, or JSON that does not parse (a cut-off body). */
  CODE.E_HTTP_TRUNCATED,
] as const;

export type HttpFinalCode = (typeof HTTP_FINAL_CODES)[number];
export type HttpTransientCode = (typeof HTTP_TRANSIENT_CODES)[number];
export type HttpErrorCode = HttpFinalCode | HttpTransientCode;

/** Context every HTTP error carries: the caller's context plus the redacted request target. */
export interface HttpErrorContext extends ErrorContext {
  /** Path and query of the request, secrets masked. */
  url: string;
  status?: number;
  attempts?: number;
  /** Start of the response body, secrets masked. */
  bodyExcerpt?: string;
}

/** Every failure of the HTTP layer. The message is redacted again here as a last line of defence. */
export class HttpError extends FanlakeError {
  override readonly name = 'HttpError';
  declare readonly code: HttpErrorCode;

  constructor(
    code: HttpErrorCode,
    message: string,
    options: { context: HttpErrorContext; cause?: unknown },
  ) {
    super(code, redact(message), {
      context: options.context,
      cause: options.cause,
    });
  }

  override get context(): HttpErrorContext {
    return super.context as HttpErrorContext;
  }

  /** The response status, when a response arrived. */
  get status(): number | undefined {
    return this.context.status;
  }
}

/** What the client knows about a request when it builds an error. */
export interface RequestFacts {
  url: URL;
  context?: ErrorContext;
  attempts: number;
}

const EXCERPT_CHARS = 200;

/** Path and query only: the origin is configuration, and the query is redacted for tokens. */
export function redactedTarget(url: URL): string {
  return redact(url.pathname + url.search);
}

/**
 * A short, single-line, redacted start of a body. Redacts before cutting, so a secret that
 * straddles the cut cannot leak half of itself.
 */
export function bodyExcerpt(text: string): string {
  const flat = redact(text).replace(/\s+/g, ' ').trim();
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS)}…` : flat;
}

export function statusError(facts: RequestFacts, status: number, body: string): HttpError {
  const excerpt = bodyExcerpt(body);
  return new HttpError(
    CODE.E_HTTP_STATUS,
    `GET ${redactedTarget(facts.url)} answered ${describeStatus(status)}${describeContext(facts.context)}` +
      (excerpt ? `: ${excerpt}` : ''),
    { context: contextOf(facts, { status, bodyExcerpt: excerpt }) },
  );
}

/** 401. `credentialHint` names the setting to check; the credential itself never appears. */
export function authError(
  facts: RequestFacts,
  body: string,
  credentialHint = 'check the API credential',
): HttpError {
  const excerpt = bodyExcerpt(body);
  return new HttpError(
    CODE.E_HTTP_AUTH,
    `GET ${redactedTarget(facts.url)} was refused with ${describeStatus(401)}` +
      `${describeContext(facts.context)}: ${credentialHint}` +
      (excerpt ? ` (server said: ${excerpt})` : ''),
    { context: contextOf(facts, { status: 401, bodyExcerpt: excerpt }) },
  );
}

/** Ends the retry loop; names the request, where it belongs, and why the last attempt failed. */
export function gaveUpError(facts: RequestFacts, last: HttpError): HttpError {
  return new HttpError(
    CODE.E_HTTP_GAVE_UP,
    `GET ${redactedTarget(facts.url)} gave up after ${facts.attempts} attempt${facts.attempts === 1 ? '' : 's'}` +
      `${describeContext(facts.context)}; last failure: ${last.message}`,
    { context: contextOf(facts, { status: last.status }), cause: last },
  );
}

export function requestError(facts: RequestFacts, reason: string, cause?: unknown): HttpError {
  return new HttpError(
    CODE.E_HTTP_REQUEST,
    `GET ${redactedTarget(facts.url)} could not be sent${describeContext(facts.context)}: ${reason}`,
    { context: contextOf(facts), cause },
  );
}

// Transient messages are short on purpose: they end up after "last failure:" in E_HTTP_GAVE_UP.

export function retryableStatusError(facts: RequestFacts, status: number, body: string): HttpError {
  const excerpt = bodyExcerpt(body);
  return new HttpError(
    CODE.E_HTTP_RETRYABLE_STATUS,
    `${describeStatus(status)}${excerpt ? `: ${excerpt}` : ''}`,
    { context: contextOf(facts, { status, bodyExcerpt: excerpt }) },
  );
}

export function timeoutError(
  facts: RequestFacts,
  timeoutMs: number,
  phase: 'headers' | 'body',
): HttpError {
  const waitingFor = phase === 'headers' ? 'the response headers' : 'the rest of the body';
  return new HttpError(CODE.E_HTTP_TIMEOUT, `timed out after ${timeoutMs} ms waiting for ${waitingFor}`, {
    context: contextOf(facts),
  });
}

export function networkError(facts: RequestFacts, code: string, cause: unknown): HttpError {
  return new HttpError(CODE.E_HTTP_NETWORK, `connection failed (${code})`, {
    context: contextOf(facts),
    cause,
  });
}

export function truncatedError(facts: RequestFacts, detail: string, cause?: unknown): HttpError {
  return new HttpError(CODE.E_HTTP_TRUNCATED, `body cut off: ${detail}`, {
    context: contextOf(facts),
    cause,
  });
}

function contextOf(facts: RequestFacts, extra: Partial<HttpErrorContext> = {}): HttpErrorContext {
  const context: HttpErrorContext = {
    ...facts.context,
    url: redactedTarget(facts.url),
    attempts: facts.attempts,
  };
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) context[key] = value;
  return context;
}

function describeStatus(status: number): string {
  const text = STATUS_CODES[status];
  return text ? `${status} ${text}` : String(status);
}

/** `" [source=ticketing resource=tickets page=3]"`, or nothing when there is no context. */
function describeContext(context: ErrorContext | undefined): string {
  const parts = Object.entries(context ?? {})
    .filter(([, value]) => ['string', 'number', 'boolean'].includes(typeof value))
    .map(([key, value]) => `${key}=${String(value)}`);
  return parts.length > 0 ? ` [${parts.join(' ')}]` : '';
}
