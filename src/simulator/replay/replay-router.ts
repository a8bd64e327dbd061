import { type Handler, type Reply, Router, json } from '../http/router.js';
import { KEPT_BUFFER_OVERHEAD, type ReplayBudget } from './replay-budget.js';

/** Hits and misses of a replay router since it started. */
export interface ReplayStats {
  hits: number;
  misses: number;
}

/** A reply with its body already serialized (or none, for a 204). */
type StoredReply = Exclude<Reply, { json: unknown }>;

/** Path of the counters a replay server serves beside the APIs (`GET`, JSON). */
export const REPLAY_STATS_PATH = '/__replay/stats';

/**
 * Answers each distinct request (path, query in any order, Authorization) with the bytes
 * the wrapped router gave the first time: a replayed request costs a map lookup, so a
 * benchmark measures the client, not the simulated API's generation of records. Once the
 * budget is spent, further first answers are served without being kept.
 */
export class ReplayRouter extends Router {
  readonly stats: ReplayStats = { hits: 0, misses: 0 };
  private readonly replies = new Map<string, StoredReply>();

  constructor(
    private readonly inner: Router,
    private readonly budget: ReplayBudget,
  ) {
    super();
  }

  override match(method: string, path: string): ReturnType<Router['match']> {
    if (method === 'GET' && path === REPLAY_STATS_PATH) return { handler: () => json(200, this.stats), params: {} };
    const found = this.inner.match(method, path);
    if (found === undefined || found === 'method-not-allowed' || method !== 'GET') return found;
    return { handler: this.replayed(found.handler), params: found.params };
  }

  private replayed(handler: Handler): Handler {
    return async (ctx) => {
      const query = [...ctx.query].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      const key = `${ctx.path}?${new URLSearchParams(query)}\n${ctx.req.headers.authorization ?? ''}`;
      const stored = this.replies.get(key);
      if (stored) {
        this.stats.hits++;
        return stored;
      }
      this.stats.misses++;
      const reply = toStored(await handler(ctx));
      if (this.budget.take(key.length + ('body' in reply ? reply.body.length : 0) + KEPT_BUFFER_OVERHEAD)) this.replies.set(key, reply);
      return reply;
    };
  }
}

function toStored(reply: Reply): StoredReply {
  if ('json' in reply) return { status: reply.status, body: Buffer.from(JSON.stringify(reply.json)), contentType: 'application/json; charset=utf-8', headers: reply.headers };
  return reply;
}
