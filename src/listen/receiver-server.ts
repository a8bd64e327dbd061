import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JournalWriter } from './journal-writer.js';
import { decodeBody, type PushMessage, readPushMessage } from './push-payload.js';
import { type MonotonicClock, TokenBucket } from './token-bucket.js';

export interface ReceiverServerOptions {
  readonly journal: JournalWriter;
  /** The unguessable last path segment deliveries must be sent to (`.../push/<secret>`). */
  readonly secret: string;
  readonly maxBodyBytes: number;
  /** Deliveries per second (requests to the secret path; the platform arrives through one proxy); a burst of as many is allowed. */
  readonly maxRequestsPerSecond: number;
  /** Requests to any other path answered per second (a burst of as many); beyond, their connection is closed unanswered. */
  readonly maxUnauthenticatedPerSecond: number;
  readonly profileIdPaths: readonly string[];
  /** The clock of both rate limits (tests move one by hand); `performance.now` by default. */
  readonly clock?: MonotonicClock;
  /** The time a delivery is recorded at (tests pin it); the wall clock by default. */
  readonly now?: () => Date;
  /** Told about each delivery recorded and each one refused, for the log. */
  readonly onEvent?: (event: ReceiverEvent) => void;
}

export type ReceiverEvent =
  | { type: 'changes'; ids: number }
  | { type: 'unreadable'; why: string }
  | { type: 'validation'; subscriptionId?: string }
  | { type: 'refused'; status: number; why: string };

/** The path prefix of the callback: `<public URL>/push/<secret>`. */
export const PUSH_PATH = '/push/';

/**
 * The receiver's HTTP side. The secret path is checked first, in constant time, before
 * anything that costs: a request to any other path is answered 404 and its connection
 * closed, within a bound of its own (`maxUnauthenticatedPerSecond`); beyond that bound its
 * connection is closed unanswered. So a flood of strangers never takes the deliveries'
 * allowance, nor a socket for longer than its headers. A request to the secret path is taken
 * within the deliveries' rate and body size, without reading its body otherwise: 429 over the
 * rate, 405 for another method, 413 for a body too large. A validation token is handed to
 * whoever waits for it; changes are appended to the journal and fsynced before the 200, so an
 * acknowledged change is never lost.
 */
export class ReceiverServer {
  private readonly server: Server;
  private readonly secretDigest: Buffer;
  /** The platform's allowance: only requests that carry the secret take from it. */
  private readonly deliveries: TokenBucket;
  /** Everyone else's. */
  private readonly strangers: TokenBucket;
  private readonly tokenWaiters: { subscriptionId?: string; resolve: (token: string) => void }[] = [];
  /** Tokens that arrived before anyone asked for them. */
  private readonly earlyTokens: { token: string; subscriptionId?: string }[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly fail: (error: Error) => void;

  constructor(private readonly options: ReceiverServerOptions) {
    this.secretDigest = digest(options.secret);
    this.deliveries = new TokenBucket(options.maxRequestsPerSecond, options.clock);
    this.strangers = new TokenBucket(options.maxUnauthenticatedPerSecond, options.clock);
    // Timeouts are enforced every second rather than Node's 30: a caller that never sends its headers holds a socket for 10 s at most.
    this.server = createServer({ connectionsCheckingInterval: 1_000 }, (req, res) => {
      const handled = this.handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      });
      this.inFlight.add(handled);
      void handled.finally(() => this.inFlight.delete(handled));
    });
    // A caller that trickles its headers or body is cut off rather than holding a socket.
    this.server.headersTimeout = 10_000;
    this.server.requestTimeout = 30_000;
    this.server.keepAliveTimeout = 5_000;
    let fail: (error: Error) => void = () => undefined;
    this.failed = new Promise((_, reject) => (fail = reject));
    this.fail = fail;
    // Handled here too: a failure nobody waits for yet (during the handshake) must not end the process.
    this.failed.catch(() => undefined);
  }

  /**
   * Rejects when the listening server fails (for example EMFILE on accept): the receiver then
   * ends as failed instead of taking its whole process down with an unhandled error.
   */
  readonly failed: Promise<never>;

  /** Starts listening; resolves to the address actually bound (the real port for 0). */
  async listen(host: string, port: number): Promise<{ host: string; port: number }> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        this.server.on('error', (error) => this.fail(error));
        resolve();
      });
    });
    const address = this.server.address() as AddressInfo;
    return { host, port: address.port };
  }

  /** The next validation token sent to us (for `subscriptionId` when the payload names one). */
  validationToken(subscriptionId: string | undefined, timeoutMs: number): Promise<string | undefined> {
    const early = this.earlyTokens.findIndex((t) => matches(t.subscriptionId, subscriptionId));
    if (early >= 0) return Promise.resolve(this.earlyTokens.splice(early, 1)[0]!.token);
    return new Promise((resolve) => {
      const waiter = { subscriptionId, resolve: (token: string) => (clearTimeout(timer), resolve(token)) };
      const timer = setTimeout(() => {
        this.tokenWaiters.splice(this.tokenWaiters.indexOf(waiter), 1);
        resolve(undefined);
      }, timeoutMs);
      this.tokenWaiters.push(waiter);
    });
  }

  /** Stops taking connections and waits for the deliveries being recorded. */
  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeIdleConnections();
    });
    await Promise.all(this.inFlight);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.url ?? '/';
    const query = target.indexOf('?');
    if (!this.authorized(query < 0 ? target : target.slice(0, query))) return this.turnAway(req, res);
    if (!this.deliveries.take()) return this.refuse(req, res, 429, 'over the rate limit', { 'retry-after': '1' });
    if (req.method !== 'POST') return this.refuse(req, res, 405, `method ${req.method}`, { allow: 'POST' });
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > this.options.maxBodyBytes) return this.refuse(req, res, 413, `body of ${declared} bytes`);
    const body = await this.readBody(req);
    if (body === undefined) return this.refuse(req, res, 413, `body over ${this.options.maxBodyBytes} bytes`);
    const url = new URL(target, 'http://receiver');
    const message = readPushMessage(decodeBody(body, req.headers['content-type']), url.searchParams, this.options.profileIdPaths);
    await this.take(message);
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('ok');
  }

  /** A request without the secret: 404 within its own bound, else its connection closed unanswered (nothing logged). */
  private turnAway(req: IncomingMessage, res: ServerResponse): void {
    if (this.strangers.take()) return this.refuse(req, res, 404, 'not the callback path');
    req.socket.on('error', () => undefined);
    req.socket.destroy();
  }

  private async take(message: PushMessage): Promise<void> {
    const at = (this.options.now?.() ?? new Date()).toISOString();
    switch (message.kind) {
      case 'validation': {
        this.options.onEvent?.({ type: 'validation', subscriptionId: message.subscriptionId });
        const waiter = this.tokenWaiters.findIndex((w) => matches(message.subscriptionId, w.subscriptionId));
        if (waiter >= 0) this.tokenWaiters.splice(waiter, 1)[0]!.resolve(message.token);
        else this.earlyTokens.push({ token: message.token, subscriptionId: message.subscriptionId });
        return;
      }
      case 'changes':
        await this.options.journal.append({ at, ids: message.ids });
        this.options.onEvent?.({ type: 'changes', ids: message.ids.length });
        return;
      case 'unreadable':
        await this.options.journal.append({ at, unparsed: true });
        this.options.onEvent?.({ type: 'unreadable', why: message.why });
    }
  }

  private authorized(pathname: string): boolean {
    const at = pathname.lastIndexOf(PUSH_PATH);
    if (at < 0) return false;
    return timingSafeEqual(digest(pathname.slice(at + PUSH_PATH.length)), this.secretDigest);
  }

  /** The body, or undefined once it grows past the limit (the rest is not read). */
  private async readBody(req: IncomingMessage): Promise<Buffer | undefined> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > this.options.maxBodyBytes) return undefined;
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks);
  }

  private refuse(req: IncomingMessage, res: ServerResponse, status: number, why: string, headers: Record<string, string> = {}): void {
    this.options.onEvent?.({ type: 'refused', status, why });
    // The body is not read: the connection closes after the answer instead of draining it.
    res.writeHead(status, { ...headers, connection: 'close', 'content-type': 'text/plain; charset=utf-8' }).end(status === 404 ? 'not found' : 'refused');
    req.socket.on('error', () => undefined);
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** A token without a subscription id goes to whoever waits; one with an id to a waiter for that id or for any. */
function matches(tokenFor: string | undefined, waitingFor: string | undefined): boolean {
  return tokenFor === undefined || waitingFor === undefined || tokenFor === waitingFor;
}
