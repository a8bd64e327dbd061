import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';

/** One GET on the wire: where, with which headers, for how long, and how much of the body to keep. */
export interface GetAttempt {
  readonly dispatcher: Dispatcher;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  /** From sending the request to the last byte of the body. */
  readonly timeoutMs: number;
  /** Whether a status's body is wanted whole; otherwise only its first `errorBodyLimit` bytes are read (an excerpt). */
  readonly wholeBody: (status: number) => boolean;
  readonly errorBodyLimit: number;
  /** The caller's cancellation; aborts the attempt at once. */
  readonly signal?: AbortSignal;
}

/** A response read to its end (or, for an unwanted body, as far as was wanted or could be read). */
export interface GetReply {
  readonly ok: true;
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** An attempt that ended without a response: why, and how far it got. */
export interface GetFailure {
  readonly ok: false;
  readonly error: unknown;
  /** The attempt's own deadline ended it. */
  readonly timedOut: boolean;
  /** The response headers had arrived (the body broke off, not the request). */
  readonly gotHeaders: boolean;
}

/**
 * Sends one GET through undici's dispatcher and gathers the body into one buffer. A
 * handler instead of `request()`: no stream, no abort controller and no listener per
 * attempt, only a timer. Engagement fan-outs make one small request per profile, where
 * those per-request objects were a good part of the CPU beyond fetching and parsing.
 *
 * Never rejects: a failure is described, and the caller decides what it means.
 */
export function sendGet(attempt: GetAttempt): Promise<GetReply | GetFailure> {
  return new Promise((resolve) => {
    const url = attempt.url;
    const handler = new GetHandler(attempt, resolve);
    attempt.dispatcher.dispatch({ origin: url.origin, path: url.pathname + url.search, method: 'GET', headers: attempt.headers }, handler);
  });
}

class GetHandler implements Dispatcher.DispatchHandler {
  #controller: Dispatcher.DispatchController | undefined;
  /** Why the attempt is being stopped, once it is; applied as soon as undici hands over a controller. */
  #stopping: Error | undefined;
  #timedOut = false;
  #status = 0;
  #headers: IncomingHttpHeaders | undefined;
  #wanted = true;
  #chunks: Buffer[] = [];
  #size = 0;
  #settled = false;
  readonly #timer: NodeJS.Timeout;
  readonly #onAbort: (() => void) | undefined;

  constructor(
    private readonly attempt: GetAttempt,
    private readonly resolve: (outcome: GetReply | GetFailure) => void,
  ) {
    this.#timer = setTimeout(() => {
      this.#timedOut = true;
      this.#stop(new Error(`attempt timed out after ${attempt.timeoutMs} ms`));
    }, attempt.timeoutMs);
    const signal = attempt.signal;
    if (signal) {
      this.#onAbort = () => this.#stop(signal.reason);
      signal.addEventListener('abort', this.#onAbort, { once: true });
    }
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#stopping) controller.abort(this.#stopping);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    // 1xx answers are informational; the real one follows.
    if (statusCode < 200) return;
    this.#status = statusCode;
    this.#headers = headers;
    this.#wanted = this.attempt.wholeBody(statusCode);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#settled) return;
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    if (!this.#wanted && this.#size >= this.attempt.errorBodyLimit) {
      // Enough for an excerpt: the rest is not downloaded, and the aborted socket is closed.
      this.#reply();
      controller.abort(new Error('error body read as far as needed'));
    }
  }

  onResponseEnd(): void {
    this.#reply();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.#settled) return;
    // A status that is not wanted whole decides on its own: an excerpt cut short is still an excerpt.
    if (this.#headers && !this.#wanted) {
      this.#reply();
      return;
    }
    this.#settle({ ok: false, error, timedOut: this.#timedOut, gotHeaders: this.#headers !== undefined });
  }

  #reply(): void {
    if (this.#settled) return;
    const body = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks, this.#size);
    this.#settle({ ok: true, status: this.#status, headers: this.#headers ?? {}, body });
  }

  #stop(reason: Error): void {
    if (this.#settled || this.#stopping) return;
    this.#stopping = reason;
    this.#controller?.abort(reason);
  }

  #settle(outcome: GetReply | GetFailure): void {
    this.#settled = true;
    this.#chunks = [];
    clearTimeout(this.#timer);
    if (this.#onAbort) this.attempt.signal?.removeEventListener('abort', this.#onAbort);
    this.resolve(outcome);
  }
}
