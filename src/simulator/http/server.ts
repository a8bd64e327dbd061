import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { FaultPlan } from './faults.js';
import { type Reply, type Router, failure } from './router.js';

export interface ServeOptions {
  /** API routers, in order; faults and latency apply to them. */
  readonly api: Router[];
  /** Admin router (no faults, no latency), when the admin surface is on. */
  readonly admin?: Router;
  readonly faults: FaultPlan;
  readonly latencyMs: number;
  readonly stallMs: number;
  readonly retryAfterSeconds: number;
}

/** The HTTP front of the simulator: routing, latency, fault injection, serialisation. */
export function createSimulatorServer(options: ServeOptions): Server {
  const stalled = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    handle(req, res, options, stalled).catch((error: unknown) => {
      if (!res.headersSent) send(res, failure(500, `internal error: ${(error as Error).message}`));
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;
  server.on('close', () => stalled.forEach((res) => res.destroy()));
  return server;
}

async function handle(req: IncomingMessage, res: ServerResponse, options: ServeOptions, stalled: Set<ServerResponse>): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://simulator');
  const method = req.method ?? 'GET';
  const body = await readBody(req);

  if (options.admin && url.pathname.startsWith('/__admin/')) {
    return send(res, await dispatch([options.admin], method, url, req, body));
  }

  const fault = options.faults.draw(url.pathname + url.search);
  if (options.latencyMs > 0) await sleep(options.latencyMs);
  switch (fault) {
    case 'status-500':
      return send(res, failure(500, 'Internal server error'));
    case 'status-502':
      return send(res, { status: 502, body: '<html><body>502 Bad Gateway</body></html>', contentType: 'text/html' });
    case 'status-503':
      return send(res, failure(503, 'Service unavailable'), { 'retry-after': String(options.retryAfterSeconds) });
    case 'status-429':
      return send(res, failure(429, 'Too many requests'), { 'retry-after': String(options.retryAfterSeconds) });
    case 'status-404':
      return send(res, failure(404, 'Not found'));
    case 'stall':
      stalled.add(res);
      await sleep(options.stallMs);
      stalled.delete(res);
      res.destroy();
      return;
    default:
  }
  const reply = await dispatch(options.api, method, url, req, body);
  if (fault === 'reset-mid-body' && 'json' in reply) {
    const text = JSON.stringify(reply.json);
    res.writeHead(reply.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.write(text.slice(0, Math.floor(text.length / 2)));
    setTimeout(() => res.destroy(), 5);
    return;
  }
  send(res, reply);
}

async function dispatch(routers: Router[], method: string, url: URL, req: IncomingMessage, body: unknown): Promise<Reply> {
  let notAllowed = false;
  for (const router of routers) {
    const found = router.match(method, url.pathname);
    if (found === 'method-not-allowed') notAllowed = true;
    else if (found) return found.handler({ req, method, path: url.pathname, query: url.searchParams, params: found.params, body });
  }
  return notAllowed ? failure(405, `Method ${method} not allowed`) : failure(404, `No route for ${url.pathname}`);
}

function send(res: ServerResponse, reply: Reply, extraHeaders: Record<string, string> = {}): void {
  const headers = { ...extraHeaders, ...('headers' in reply ? reply.headers : {}) };
  if (!('json' in reply) && !('body' in reply)) {
    res.writeHead(reply.status, headers).end();
    return;
  }
  const [contentType, payload] = 'json' in reply ? ['application/json; charset=utf-8', JSON.stringify(reply.json)] : [reply.contentType, reply.body];
  res.writeHead(reply.status, { 'content-type': contentType, 'content-length': Buffer.byteLength(payload), ...headers });
  res.end(payload);
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'DELETE') {
    req.resume();
    return undefined;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return undefined;
  const type = req.headers['content-type'] ?? '';
  if (!type.includes('json')) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
