import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Handles the n-th request (0-based) the server received. */
export type Step = (req: IncomingMessage, res: ServerResponse, n: number) => void;

export interface LoopbackServer {
  /** Origin, e.g. http://127.0.0.1:41234 */
  origin: string;
  /** Requests received so far. */
  readonly hits: number;
  /** Requests received, in order. */
  readonly requests: IncomingMessage[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on loopback whose answers follow a script: request n gets `steps[n]`,
 * and requests past the end get the last step.
 */
export async function startServer(steps: Step[] | Step): Promise<LoopbackServer> {
  const script = Array.isArray(steps) ? steps : [steps];
  const requests: IncomingMessage[] = [];
  const server: Server = createServer((req, res) => {
    const n = requests.length;
    requests.push(req);
    script[Math.min(n, script.length - 1)](req, res, n);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    get hits() {
      return requests.length;
    },
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Step {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
}

export function text(status: number, body: string, headers: Record<string, string> = {}): Step {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
    res.end(body);
  };
}

/** Never answers; the client's timeout has to end the attempt. */
export const stall: Step = () => {};

/** Awaits a promise that must reject and returns the rejection. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}
