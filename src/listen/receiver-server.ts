import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JournalWriter } from './journal.js';
import { decodeBody, type PushMessage, readPushMessage } from './push-payload.js';

export interface ReceiverServerOptions {
  readonly journal: JournalWriter;
  /** The unguessable last path segment deliveries must be sent to (`.../push/<secret>`). */
  readonly secret: string;
  readonly maxBodyBytes: number;
  /** Requests per second over all callers (the platform arrives through one proxy); a burst of as many is allowed. */
  readonly maxRequestsPerSecond: number;
  readonly profileIdPaths: readonly string[];
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
 * The receiver's HTTP side. A request is taken only when it is a POST to `.../push/<secret>`
 * (compared in constant time), within the rate and the body size; anything else is refused
 * without reading its body: 429 over the rate, 404 for any other path (the secret is not
 * confirmed or denied), 405 for another method, 413 for a body too large. A validation
 * token is handed to whoever waits for it; changes are appended to the journal and
 * fsynced before the 200, so an acknowledged change is never lost.
 */
export class ReceiverServer {
  private readonly server: Server;
  private readonly secretDigest: Buffer;
  private tokens = 0;
  private refilledAt = performance.now();
  private readonly tokenWaiters: { subscriptionId?: string; resolve: (token: string) => void }[] = [];
  /** Tokens that arrived before anyone asked for them. */
  private readonly earlyTokens: { token: string; subscriptionId?: string }[] = [];
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly options: ReceiverServerOptions) {
    this.secretDigest = digest(options.secret);
    this.tokens = options.maxRequestsPerSecond;
    this.server = createServer((req, res) => {
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
  }

  /** Starts listening; resolves to the address actually bound (the real port for 0). */
  async listen(host: string, port: number): Promise<{ host: string; port: number }> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
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
    if (!this.takeToken()) return this.refuse(req, res, 429, 'over the rate limit', { 'retry-after': '1' });
    const url = new URL(req.url ?? '/', 'http://receiver');
    if (!this.authorized(url.pathname)) return this.refuse(req, res, 404, 'not the callback path');
    if (req.method !== 'POST') return this.refuse(req, res, 405, `method ${req.method}`, { allow: 'POST' });
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > this.options.maxBodyBytes) return this.refuse(req, res, 413, `body of ${declared} bytes`);
    const body = await this.readBody(req);
    if (body === undefined) return this.refuse(req, res, 413, `body over ${this.options.maxBodyBytes} bytes`);
    const message = readPushMessage(decodeBody(body, req.headers['content-type']), url.searchParams, this.options.profileIdPaths);
    await this.take(message);
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('ok');
  }

  private async take(message: PushMessage): Promise<void> {
    const at = new Date().toISOString();
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

  /** A token bucket over every caller: refilled continuously up to one second's worth. */
  private takeToken(): boolean {
    const now = performance.now();
    const rate = this.options.maxRequestsPerSecond;
    this.tokens = Math.min(rate, this.tokens + ((now - this.refilledAt) / 1000) * rate);
    this.refilledAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
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
