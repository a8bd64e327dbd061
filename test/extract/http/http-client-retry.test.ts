import { afterEach, describe, expect, it } from 'vitest';
import {
  createHttpClient,
  type HttpClient,
  type HttpClientOptions,
  HttpError,
  type RetryEvent,
} from '../../../src/extract/http/index.js';
import { json, type LoopbackServer, rejectionOf, stall, startServer, type Step } from './loopback-server.js';

const defaults: HttpClientOptions = {
  concurrency: 2,
  timeoutMs: 2000,
  maxAttempts: 5,
  baseDelayMs: 5,
  userAgent: 'fanlake-test/1',
};

const page = { items: [{ id: 1, name: 'Ada' }, { id: 2, name: 'Grace' }], next: 'cursor-2' };
const pageText = JSON.stringify(page);
const halfPage = pageText.slice(0, Math.floor(pageText.length / 2));

let server: LoopbackServer | undefined;
let client: HttpClient | undefined;
let events: RetryEvent[] = [];

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
  events = [];
});

function clientFor(options: Partial<HttpClientOptions> = {}): HttpClient {
  client = createHttpClient({ ...defaults, onRetry: (event) => events.push(event), ...options });
  return client;
}

/** Sends the headers and half the JSON, then cuts the connection once that reached the kernel. */
const cutMidBody: Step = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write(halfPage, () => res.socket?.destroy());
};

describe('retries', () => {
  it('retries 500, 502 and 503, then succeeds', async () => {
    server = await startServer([json(500, {}), json(502, {}), json(503, {}), json(200, page)]);
    const response = await clientFor().getJson(`${server.origin}/v1/items`, { context: { resource: 'items' } });
    expect(response).toMatchObject({ status: 200, body: page, attempts: 4 });
    expect(events.map((event) => [event.attempt, event.reason, event.status])).toEqual([
      [1, 'E_HTTP_RETRYABLE_STATUS', 500],
      [2, 'E_HTTP_RETRYABLE_STATUS', 502],
      [3, 'E_HTTP_RETRYABLE_STATUS', 503],
    ]);
    expect(events[0]).toMatchObject({ url: '/v1/items', context: { resource: 'items' } });
    expect(client?.stats()).toEqual({ requests: 1, attempts: 4, retries: 3, gaveUp: 0 });
  });

  it('waits as long as Retry-After says on 429', async () => {
    server = await startServer([json(429, {}, { 'retry-after': '1' }), json(200, page)]);
    const started = Date.now();
    const response = await clientFor().getJson(`${server.origin}/v1/items`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(response.attempts).toBe(2);
    expect(events[0]).toMatchObject({ reason: 'E_HTTP_RETRYABLE_STATUS', status: 429, delayMs: 1000 });
  });

  it('retries a connection destroyed mid-body', async () => {
    server = await startServer([cutMidBody, json(200, page)]);
    const response = await clientFor().getJson(`${server.origin}/v1/items`);
    expect(response).toMatchObject({ body: page, attempts: 2 });
    expect(events[0].reason).toBe('E_HTTP_TRUNCATED');
  });

  it('retries JSON that does not parse (a body cut short)', async () => {
    const short: Step = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(halfPage) });
      res.end(halfPage);
    };
    server = await startServer([short, json(200, page)]);
    const response = await clientFor().getJson(`${server.origin}/v1/items`);
    expect(response).toMatchObject({ body: page, attempts: 2 });
    expect(events[0].reason).toBe('E_HTTP_TRUNCATED');
  });

  it('times out a body that stalls midway, then retries', async () => {
    const stallMidBody: Step = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(halfPage);
    };
    server = await startServer([stallMidBody, json(200, page)]);
    const response = await clientFor({ timeoutMs: 300 }).getJson(`${server.origin}/v1/items`);
    expect(response.body).toEqual(page);
    // The stalled attempt timed out; on a machine busy enough, so may the quick one after it,
    // and the next answers: every retry is a timeout's, whatever the machine's speed.
    expect(response.attempts).toBeGreaterThanOrEqual(2);
    expect(events.map((event) => event.reason)).toEqual(Array(response.attempts - 1).fill('E_HTTP_TIMEOUT'));
  });

  it('retries a refused connection', async () => {
    const closed = await startServer(stall);
    await closed.close();
    const error = await rejectionOf(clientFor({ maxAttempts: 2 }).getJson(`${closed.origin}/v1/items`));
    expect(error).toMatchObject({ code: 'E_HTTP_GAVE_UP', cause: { code: 'E_HTTP_NETWORK' } });
    expect((error as HttpError).message).toContain('ECONNREFUSED');
    expect(events).toHaveLength(1);
  });

  it('stops at a fatal status after transient ones', async () => {
    server = await startServer([json(503, {}), json(400, { error: 'bad' })]);
    const error = await rejectionOf(clientFor().getJson(`${server.origin}/v1/items`));
    expect(error).toMatchObject({ code: 'E_HTTP_STATUS', status: 400, context: { attempts: 2 } });
    expect(server.hits).toBe(2);
  });
});

describe('giving up', () => {
  it('gives up on a server that stalls, naming the request, its context and the attempts', async () => {
    server = await startServer(stall);
    const error = await rejectionOf(
      clientFor({ timeoutMs: 300, maxAttempts: 2 }).getJson(`${server.origin}/v1/tickets?page=3&size=50`, {
        context: { source: 'ticketing', resource: 'tickets', window: '2024-05-01..2024-05-02', page: 3 },
      }),
    );
    expect(error).toBeInstanceOf(HttpError);
    const gaveUp = error as HttpError;
    expect(gaveUp.code).toBe('E_HTTP_GAVE_UP');
    expect(gaveUp.cause).toMatchObject({ code: 'E_HTTP_TIMEOUT' });
    expect(gaveUp.message).toContain('/v1/tickets?page=3&size=50');
    expect(gaveUp.message).toContain('source=ticketing resource=tickets window=2024-05-01..2024-05-02 page=3');
    expect(gaveUp.message).toContain('after 2 attempts');
    expect(gaveUp.message).toContain('timed out after 300 ms');
    expect(server.hits).toBe(2);
    expect(client?.stats()).toEqual({ requests: 1, attempts: 2, retries: 1, gaveUp: 1 });
  });
});
