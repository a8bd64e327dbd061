import type { IncomingMessage } from 'node:http';

/** What a handler answers; the server serialises it (and may break it, see faults). */
export type Reply =
  | { status: number; json: unknown; headers?: Record<string, string> }
  | { status: number; body: string | Buffer; contentType: string; headers?: Record<string, string> }
  | { status: 204 };

export interface RequestContext {
  readonly req: IncomingMessage;
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly params: Readonly<Record<string, string>>;
  /** Parsed JSON body for POST/PUT/PATCH, when there is one. */
  readonly body: unknown;
}

export type Handler = (ctx: RequestContext) => Reply | Promise<Reply>;

interface Route {
  readonly method: string;
  readonly pattern: RegExp;
  readonly names: string[];
  readonly handler: Handler;
}

/** Minimal method + path router; `:name` segments become params. */
export class Router {
  private readonly routes: Route[] = [];

  add(method: string, path: string, handler: Handler): this {
    const names: string[] = [];
    const source = path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    this.routes.push({ method, pattern: new RegExp(`^${source}/?$`), names, handler });
    return this;
  }

  get(path: string, handler: Handler): this {
    return this.add('GET', path, handler);
  }

  /** The handler and params for a request, `undefined` when no path matches, or 405. */
  match(method: string, path: string): { handler: Handler; params: Record<string, string> } | 'method-not-allowed' | undefined {
    let pathMatched = false;
    for (const route of this.routes) {
      const found = route.pattern.exec(path);
      if (!found) continue;
      pathMatched = true;
      if (route.method !== method) continue;
      const params = Object.fromEntries(route.names.map((name, i) => [name, decodeURIComponent(found[i + 1]!)]));
      return { handler: route.handler, params };
    }
    return pathMatched ? 'method-not-allowed' : undefined;
  }
}

export function json(status: number, body: unknown, headers?: Record<string, string>): Reply {
  return { status, json: body, headers };
}

/**
 * Error bodies: the documents do not show their shape; the simulator answers
 * `{"message": "..."}` (docs/decisions.md), the message starting with the documented text.
 */
export function failure(status: number, message: string): Reply {
  return { status, json: { message } };
}
