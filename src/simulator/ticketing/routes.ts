import type { SimClock } from '../clock.js';
import { type Reply, type RequestContext, Router, failure, json } from '../http/router.js';
import type { SimulatorOptions } from '../options.js';
import type { TicketingData, TicketingResource } from '../population/ticketing/index.js';
import { Rng } from '../random.js';
import type { RenderedRecords } from '../replay/rendered-records.js';
import type { CursorResource } from '../store/cursor-resource.js';

interface EndpointRule {
  readonly resource: TicketingResource;
  readonly datesRequired: boolean;
  readonly pageBase: 0 | 1;
}

/** The documented rules of the five list endpoints; members follows the chosen variant. */
function endpointRules(membersVariant: SimulatorOptions['membersVariant']): Record<string, EndpointRule> {
  return {
    '/api/users': { resource: 'users', datesRequired: true, pageBase: 0 },
    '/api/members':
      membersVariant === 'zero-based'
        ? { resource: 'members', datesRequired: true, pageBase: 0 }
        : { resource: 'members', datesRequired: false, pageBase: 1 },
    '/api/tickets': { resource: 'tickets', datesRequired: true, pageBase: 1 },
    '/api/merchandise': { resource: 'merchandise', datesRequired: false, pageBase: 1 },
    '/api/user_permission': { resource: 'user_permissions', datesRequired: true, pageBase: 0 },
  };
}

export interface TicketingApiState {
  readonly options: SimulatorOptions;
  readonly clock: SimClock;
  readonly data: TicketingData;
  /** Changes `--mutate` makes; the admin surface can read and reset it. */
  mutateRate: number;
  /** Replay: every record serialized ahead of time, pages answered from these bytes. */
  readonly rendered?: Record<TicketingResource, RenderedRecords>;
}

/** The ticketing data-export API: `GET /api/...` with Basic auth and date windows. */
export function ticketingRouter(state: TicketingApiState): Router {
  const router = new Router();
  let served = 0;
  for (const [path, rule] of Object.entries(endpointRules(state.options.membersVariant))) {
    router.get(path, (ctx) => {
      if (ctx.req.headers.authorization !== `Basic ${state.options.ticketingToken}`) {
        return failure(401, 'Authorization header missing or invalid');
      }
      const resource = state.data.byName[rule.resource];
      const reply = listPage(ctx, rule, resource, state.options.maxRangeDays, state.rendered?.[rule.resource]);
      if (reply.status === 200 && state.mutateRate > 0) {
        const items = (reply as { json: { items: unknown[] } }).json.items.length;
        mutate(resource, items * state.mutateRate, Rng.for(state.options.seed, 'mutate', served), state.clock.now());
      }
      served++;
      return reply;
    });
  }
  return router;
}

function listPage(ctx: RequestContext, rule: EndpointRule, resource: CursorResource, maxRangeDays: number, rendered?: RenderedRecords): Reply {
  const q = ctx.query;
  const dateInit = q.get('date_init');
  const dateEnd = q.get('date_end');
  if (rule.datesRequired && (dateInit === null || dateEnd === null)) {
    return failure(400, 'date_init and date_end are required');
  }
  for (const [name, value] of [['date_init', dateInit], ['date_end', dateEnd]] as const) {
    if (value !== null && !/^-?\d+$/.test(value)) return failure(400, `${name} must be a Unix timestamp in seconds`);
  }
  const fromSeconds = dateInit === null ? Number.NEGATIVE_INFINITY : Number(dateInit);
  const toSeconds = dateEnd === null ? Number.POSITIVE_INFINITY : Number(dateEnd);
  if (fromSeconds > toSeconds) return failure(400, 'date_init must not be after date_end');
  if (dateInit !== null && dateEnd !== null && toSeconds - fromSeconds > maxRangeDays * 86_400) {
    return failure(400, 'The time frame between date_init and date_end exceeds the maximum of 3 years');
  }
  const count = intParam(q.get('count_elements'), 10);
  if (count === undefined || count < 1 || count > 200) return failure(400, 'count_elements must be an integer between 1 and 200');
  const page = intParam(q.get('page'), rule.pageBase);
  if (page === undefined || page < 0) return failure(400, 'page must be a non-negative integer');
  const order = (q.get('order') ?? 'DESC').toUpperCase();
  if (order !== 'ASC' && order !== 'DESC') return failure(400, 'order must be ASC or DESC');

  // A one-based endpoint serves page 0 as page 1, as real ones do.
  const offset = (Math.max(page, rule.pageBase) - rule.pageBase) * count;
  const { start, end } = resource.timeline.window(fromSeconds * 1000, toSeconds * 1000);
  const total = end - start;
  const indices: number[] = [];
  for (let k = offset; k < Math.min(total, offset + count); k++) {
    const position = order === 'ASC' ? start + k : end - 1 - k;
    indices.push(resource.timeline.at(position));
  }
  const pageEcho = q.get('page') ?? '';
  if (rendered) return { status: 200, body: rendered.page(total, pageEcho, indices), contentType: 'application/json; charset=utf-8' };
  return json(200, { count: String(total), page: pageEcho, items: indices.map((index) => resource.record(index)) });
}

function intParam(value: string | null, fallback: number): number | undefined {
  if (value === null || value === '') return fallback;
  return /^\d+$/.test(value) ? Number(value) : undefined;
}

/** Gives `expected` random records (fractions drawn by chance) a new last_update. */
function mutate(resource: CursorResource, expected: number, rng: Rng, nowMs: number): void {
  const count = Math.floor(expected) + (rng.chance(expected % 1) ? 1 : 0);
  const live = resource.timeline.count;
  for (let k = 0; k < count && live > 0; k++) {
    resource.touch(resource.timeline.at(rng.int(0, live - 1)), nowMs);
  }
}
