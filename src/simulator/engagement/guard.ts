import { type Handler, type Reply, type RequestContext, failure, json } from '../http/router.js';
import type { EngagementModule } from '../options.js';
import type { EngagementApiState } from './state.js';

/** A request the simulated API refuses; thrown by parameter parsers, answered by the guards. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/**
 * Wraps an organization-scoped v2 handler: `Authorization: Basic <API_KEY>` (else 401),
 * the organization in the path must be the key's (else 403: the key is valid but not
 * for that organization), and the resource's module must be enabled (else 403).
 */
export function v2(state: EngagementApiState, module: EngagementModule | undefined, handler: Handler): Handler {
  return async (ctx) => {
    if (ctx.req.headers.authorization !== `Basic ${state.options.engagementApiKey}`) {
      return failure(401, 'Authorization header missing or invalid');
    }
    return guarded(state, ctx, module, handler);
  };
}

/**
 * Wraps a user-facing userapi/v1 handler: `Authorization: Bearer <user token>` from
 * cmtoken (the activities listing's scheme is not documented; it uses the same).
 */
export function userApi(state: EngagementApiState, handler: (ctx: RequestContext, profileIndex: number) => Reply): Handler {
  return async (ctx) => {
    const bearer = /^Bearer (\S+)$/.exec(ctx.req.headers.authorization ?? '');
    const profileId = bearer ? state.tokens.customerProfileIdOf(bearer[1]!) : undefined;
    const profileIndex = profileId === undefined ? -1 : state.data.profiles.indexOfId(String(profileId));
    if (profileIndex < 0) return failure(401, 'User token missing or invalid');
    return guarded(state, ctx, undefined, (c) => handler(c, profileIndex));
  };
}

async function guarded(state: EngagementApiState, ctx: RequestContext, module: EngagementModule | undefined, handler: Handler): Promise<Reply> {
  if (ctx.params.orgId !== state.options.orgId) {
    return failure(403, `The credentials are not valid for organization ${ctx.params.orgId}`);
  }
  if (module && state.disabledModules.has(module)) {
    return failure(403, `Module ${module} is not enabled for organization ${state.options.orgId}`);
  }
  try {
    return await handler(ctx);
  } catch (error) {
    if (error instanceof ApiError) return failure(error.status, error.message);
    throw error;
  }
}

/** A JSON:API-like body, served as the documented application/vnd.api+json. */
export function jsonApi(body: unknown): Reply {
  return json(200, body, { 'content-type': 'application/vnd.api+json; charset=utf-8' });
}

/** A query parameter by name, case-insensitively (as the platform's ASP.NET binding does); null when absent. */
export function param(query: URLSearchParams, name: string): string | null {
  const wanted = name.toLowerCase();
  for (const [key, value] of query) if (key.toLowerCase() === wanted) return value;
  return null;
}

/** Every value of a repeatable parameter, comma-separated lists split. */
export function params(query: URLSearchParams, name: string): string[] {
  const wanted = name.toLowerCase();
  const out: string[] = [];
  for (const [key, value] of query) {
    if (key.toLowerCase() === wanted) out.push(...value.split(',').map((v) => v.trim()).filter(Boolean));
  }
  return out;
}

/** An integer parameter in [min, max]; `fallback` when absent or empty. */
export function intParam(query: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const value = param(query, name);
  if (value === null || value === '') return fallback;
  const number = /^-?\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(number >= min && number <= max)) {
    throw new ApiError(400, `${name} must be an integer ${max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `between ${min} and ${max}`}`);
  }
  return number;
}

/** An optional id (a long); undefined when absent. */
export function idParam(query: URLSearchParams, name: string): number | undefined {
  const value = param(query, name);
  if (value === null || value === '') return undefined;
  if (!/^\d+$/.test(value)) throw new ApiError(400, `${name} must be a number`);
  return Number(value);
}

export function boolParam(query: URLSearchParams, name: string, fallback: boolean): boolean {
  const value = param(query, name)?.toLowerCase();
  if (value === undefined || value === '') return fallback;
  if (value !== 'true' && value !== 'false') throw new ApiError(400, `${name} must be true or false`);
  return value === 'true';
}

/**
 * The largest pageSize the simulator serves; the document gives none. Chosen (see
 * docs/decisions.md) so a loader's page size well above the default 50 still works.
 */
export const MAX_PAGE_SIZE = 1000;

/**
 * pageIndex (zero-based, default 0) and pageSize (default 50, at most MAX_PAGE_SIZE).
 * The profile list's defaults are not documented; it uses those of the other lists.
 */
export function paging(query: URLSearchParams): { pageIndex: number; pageSize: number } {
  return {
    pageIndex: intParam(query, 'pageIndex', 0, 0, Number.MAX_SAFE_INTEGER),
    pageSize: intParam(query, 'pageSize', 50, 1, MAX_PAGE_SIZE),
  };
}

/** The slice of `items` a page covers. */
export function pageOf<T>(items: ArrayLike<T>, { pageIndex, pageSize }: { pageIndex: number; pageSize: number }): T[] {
  const out: T[] = [];
  const end = Math.min(items.length, (pageIndex + 1) * pageSize);
  for (let k = pageIndex * pageSize; k < end; k++) out.push(items[k]!);
  return out;
}
