import { afterEach, describe, expect, it } from 'vitest';
import { registerSecret } from '../../../src/core/secrets.js';
import { createHttpClient, type HttpClient, HttpError, type HttpClientOptions } from '../../../src/extract/http/index.js';
import { json, type LoopbackServer, rejectionOf, type Step, startServer, text } from './loopback-server.js';

const defaults: HttpClientOptions = {
  concurrency: 2,
  timeoutMs: 2000,
  maxAttempts: 3,
  baseDelayMs: 5,
  userAgent: 'fanlake-test/1',
};

let server: LoopbackServer | undefined;
let client: HttpClient | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

function clientFor(options: Partial<HttpClientOptions> = {}): HttpClient {
  client = createHttpClient({ ...defaults, ...options });
  return client;
}

describe('getJson success', () => {
  it('returns parsed JSON, the attempt count, the byte size and the bytes as received', async () => {
    const body = { items: [1, 2], next: null };
    server = await startServer(json(200, body));
    const response = await clientFor().getJson(`${server.origin}/v1/items?page=1`);
    expect(response).toEqual({ status: 200, body, attempts: 1, bytes: JSON.stringify(body).length, raw: Buffer.from(JSON.stringify(body)) });
    expect(server.requests[0].headers['user-agent']).toBe('fanlake-test/1');
    expect(server.requests[0].headers.accept).toBe('application/json');
    expect(client?.stats()).toEqual({ requests: 1, attempts: 1, retries: 0, gaveUp: 0 });
  });

  it('returns a non-JSON body as text', async () => {
    server = await startServer(text(200, 'pong'));
    const response = await clientFor().getJson(`${server.origin}/ping`);
    expect(response.body).toBe('pong');
  });

  it('returns an accepted status instead of throwing', async () => {
    server = await startServer(json(404, { error: 'no such member' }));
    const response = await clientFor().getJson(`${server.origin}/v1/members/9`, { acceptStatuses: [404] });
    expect(response).toMatchObject({ status: 404, body: { error: 'no such member' }, attempts: 1 });
  });
});

describe('getJson fail fast', () => {
  it('throws E_HTTP_STATUS on 400 after exactly one attempt', async () => {
    server = await startServer(json(400, { error: 'bad since parameter' }));
    const error = await rejectionOf(
      clientFor().getJson(`${server.origin}/v1/tickets?since=x`, { context: { source: 'ticketing', resource: 'tickets' } }),
    );
    expect(error).toBeInstanceOf(HttpError);
    expect(error).toMatchObject({ code: 'E_HTTP_STATUS', status: 400, retryable: false });
    const { message, context } = error as HttpError;
    expect(message).toContain('/v1/tickets?since=x');
    expect(message).toContain('resource=tickets');
    expect(context.bodyExcerpt).toContain('bad since parameter');
    expect(server.hits).toBe(1);
  });

  it.each([403, 404, 422])('does not retry %i', async (status) => {
    server = await startServer(json(status, {}));
    const error = await rejectionOf(clientFor().getJson(`${server.origin}/x`));
    expect(error).toMatchObject({ code: 'E_HTTP_STATUS', status });
    expect(server.hits).toBe(1);
  });

  it('throws E_HTTP_AUTH on 401 naming the credential to check, never the credential', async () => {
    const token = 'tok-9f8e7d6c5b4a';
    registerSecret(token);
    server = await startServer((req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `token ${String(req.headers.authorization)} is expired` }));
    });
    const error = await rejectionOf(
      clientFor().getJson(`${server.origin}/v1/tickets?key=${token}`, {
        headers: { Authorization: `Bearer ${token}` },
        credentialHint: 'check FANLAKE_TICKETING_TOKEN',
      }),
    );
    expect(server.requests[0].headers.authorization).toBe(`Bearer ${token}`);
    expect(error).toMatchObject({ code: 'E_HTTP_AUTH', status: 401 });
    const { message, context } = error as HttpError;
    expect(message).toContain('check FANLAKE_TICKETING_TOKEN');
    expect(message).toContain('Bearer ***');
    expect(message).not.toContain(token);
    expect(JSON.stringify(context)).not.toContain(token);
    expect(server.hits).toBe(1);
  });
});

describe('error bodies', () => {
  it('reads only the start of a long error body and frees the connection for the next request', async () => {
    // 64 KB of an error page and then nothing: a client that waited for the end would time out.
    const endless: Step = (_req, res) => {
      res.writeHead(400, { 'content-type': 'text/html' });
      res.write(`<html>bad request ${'x'.repeat(64 * 1024)}`);
    };
    server = await startServer([endless, json(200, { ok: true })]);
    const http = clientFor({ concurrency: 1, timeoutMs: 30_000 });
    const error = await rejectionOf(http.getJson(`${server.origin}/x`));
    expect(error).toMatchObject({ code: 'E_HTTP_STATUS', status: 400 });
    expect((error as HttpError).context.bodyExcerpt).toContain('bad request');
    expect(await http.getJson(`${server.origin}/y`)).toMatchObject({ status: 200, body: { ok: true } });
  });

  it('reports the status of an error body that breaks off, with what arrived', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.write('since is not a date', () => res.socket?.destroy());
    });
    const error = await rejectionOf(clientFor().getJson(`${server.origin}/x`));
    expect(error).toMatchObject({ code: 'E_HTTP_STATUS', status: 400 });
    expect((error as HttpError).context.bodyExcerpt).toContain('since is not a date');
  });
});

describe('concurrency', () => {
  it('keeps at most `concurrency` requests in flight', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    // Requests are held, not answered after a delay: one is answered each time three are
    // waiting (and every one once all twelve came), so the slots fill whatever the machine's speed.
    const held: (() => void)[] = [];
    server = await startServer((req, res, n) => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      held.push(() => {
        inFlight -= 1;
        json(200, { ok: true })(req, res, n);
      });
      while (held.length >= 3 || (n === 11 && held.length > 0)) held.shift()!();
    });
    const http = clientFor({ concurrency: 3 });
    const pages = Array.from({ length: 12 }, (_, page) => http.getJson(`${server?.origin}/v1/items?page=${page}`));
    await Promise.all(pages);
    expect(server.hits).toBe(12);
    expect(maxInFlight).toBe(3);
  });

  it('does not hold a slot while waiting to retry', async () => {
    server = await startServer((req, res, n) => {
      if (req.url === '/slow' && n === 0) json(503, {}, { 'retry-after': '1' })(req, res, n);
      else json(200, { url: req.url })(req, res, n);
    });
    const http = clientFor({ concurrency: 1 });
    const finished: string[] = [];
    const slow = http.getJson(`${server.origin}/slow`).then(() => finished.push('slow'));
    const fast = http.getJson(`${server.origin}/fast`).then(() => finished.push('fast'));
    await Promise.all([slow, fast]);
    // With one slot, /fast can only go out between /slow's two attempts if the wait freed it.
    expect(server.requests.map((req) => req.url)).toEqual(['/slow', '/fast', '/slow']);
    expect(finished).toEqual(['fast', 'slow']);
  });
});

describe('cancellation and lifetime', () => {
  it('rejects with the caller reason when the signal aborts', async () => {
    const controller = new AbortController();
    // Cancelled once the request is in flight: the server has it and never answers.
    server = await startServer(() => controller.abort(new Error('run cancelled')));
    const pending = clientFor().getJson(`${server.origin}/x`, { signal: controller.signal });
    await expect(pending).rejects.toThrow('run cancelled');
  });

  it('sends nothing when the signal aborted before the request', async () => {
    server = await startServer(json(200, {}));
    const pending = clientFor().getJson(`${server.origin}/x`, { signal: AbortSignal.abort(new Error('run cancelled')) });
    await expect(pending).rejects.toThrow('run cancelled');
    expect(server.hits).toBe(0);
  });

  it('refuses requests after close', async () => {
    const http = clientFor();
    await http.close();
    await expect(http.getJson('http://127.0.0.1:9/x')).rejects.toMatchObject({ code: 'E_HTTP_REQUEST' });
  });
});
