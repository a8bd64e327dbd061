import * as z from 'zod';
import { type Reply, Router, failure, json } from '../http/router.js';
import { ENGAGEMENT_MODULES } from '../options.js';
import { ENGAGEMENT_RESOURCES, type EngagementResource } from '../population/engagement/index.js';
import { TICKETING_RESOURCES, type TicketingResource } from '../population/ticketing/index.js';
import type { Simulator } from '../simulator.js';

const Selection = z.object({ keys: z.array(z.string()).optional(), count: z.number().int().positive().optional() });
const Verbatim = z.object({ items: z.array(z.record(z.string(), z.unknown())), lastUpdate: z.string().optional() });
const FaultControl = z.object({
  rate: z.number().min(0).max(1).optional(),
  mutate: z.number().min(0).max(1).optional(),
  force: z.object({ pattern: z.string(), fault: z.string(), times: z.number().int().positive().optional() }).optional(),
  clear: z.boolean().optional(),
});
const ClockMove = z.object({ to: z.union([z.number().int(), z.iso.datetime()]) });
const ProfileRemoval = z.object({ ids: z.array(z.string()).min(1) });
const ProfileChangeSelection = z.object({ ids: z.array(z.string()).min(1).optional(), count: z.number().int().positive().optional() });
const ModuleSwitch = z.partialRecord(z.enum(ENGAGEMENT_MODULES), z.boolean());

/**
 * `/__admin/...`: ground truth and controls for tests, only with `--admin`. Everything
 * here is also a method of `Simulator` for in-process use.
 */
export function adminRouter(sim: Simulator): Router {
  const router = new Router();
  router.get('/__admin/info', () =>
    json(200, {
      seed: sim.options.seed,
      scale: sim.options.scale,
      now: new Date(sim.clock.now()).toISOString(),
      dataTime: new Date(sim.clock.startMs).toISOString(),
      ticketing: Object.fromEntries(TICKETING_RESOURCES.map((r) => [r, sim.ticketing.byName[r].timeline.count])),
      engagement: { customer_profiles: sim.engagement.profiles.liveCount, modules: sim.engagementModules() },
    }),
  );
  router.get('/__admin/truth', () => ndjson(sim.truth()));
  router.get('/__admin/ticketing/:resource', ({ params }) => withResource(params.resource!, (r) => ndjson(sim.ticketingRecords(r))));
  router.add('POST', '/__admin/ticketing/:resource/touch', ({ params, body }) =>
    withResource(params.resource!, (r) => json(200, { keys: sim.touchTicketing(r, Selection.parse(body ?? {})) })),
  );
  router.add('POST', '/__admin/ticketing/:resource/add', ({ params, body }) =>
    withResource(params.resource!, (r) => json(200, { keys: sim.addTicketing(r, Selection.parse(body ?? {}).count ?? 1) })),
  );
  router.add('POST', '/__admin/ticketing/:resource/verbatim', ({ params, body }) =>
    withResource(params.resource!, (r) => {
      const { items, lastUpdate } = Verbatim.parse(body);
      sim.addTicketingVerbatim(r, items, lastUpdate ? Date.parse(lastUpdate) : undefined);
      return json(200, { added: items.length });
    }),
  );
  // Registered before /__admin/engagement/:resource, which would match `modules` too.
  router.get('/__admin/engagement/modules', () => json(200, sim.engagementModules()));
  router.add('POST', '/__admin/engagement/modules', ({ body }) => {
    for (const [module, enabled] of Object.entries(ModuleSwitch.parse(body ?? {}))) sim.setEngagementModule(module as never, enabled!);
    return json(200, sim.engagementModules());
  });
  router.add('POST', '/__admin/engagement/customer_profiles/remove', ({ body }) =>
    json(200, { removed: sim.removeCustomerProfiles(ProfileRemoval.parse(body).ids) }),
  );
  router.add('POST', '/__admin/engagement/customer_profiles/change', ({ body }) => {
    const selection = ProfileChangeSelection.parse(body ?? {});
    try {
      return json(200, { ids: sim.changeCustomerProfiles(selection) });
    } catch (error) {
      return failure(404, (error as Error).message);
    }
  });
  // What the platform pushed to subscriptions created through the API; `?idle=true` answers once nothing waits.
  router.get('/__admin/push', async ({ query }) => {
    if (query.get('idle') === 'true') await sim.push.idle();
    return json(200, sim.push.stats());
  });
  router.get('/__admin/engagement/:resource', ({ params, query }) => {
    if (!(ENGAGEMENT_RESOURCES as readonly string[]).includes(params.resource!)) return failure(404, `unknown engagement resource ${params.resource}`);
    const positionCount = query.get('positionCount');
    return ndjson(sim.engagementRecords(params.resource as EngagementResource, { positionCount: positionCount && /^\d+$/.test(positionCount) ? Number(positionCount) : undefined }));
  });
  // Simulated time passes at once: a season test jumps over its quiet hours.
  router.add('POST', '/__admin/clock', ({ body }) => {
    const { to } = ClockMove.parse(body ?? {});
    return json(200, { now: new Date(sim.clock.advanceTo(typeof to === 'number' ? to : Date.parse(to))).toISOString() });
  });
  router.add('POST', '/__admin/faults', ({ body }) => {
    const control = FaultControl.parse(body ?? {});
    if (control.clear) sim.faults.clearForced();
    if (control.rate !== undefined) sim.faults.rate = control.rate;
    if (control.mutate !== undefined) sim.mutateRate = control.mutate;
    if (control.force) sim.faults.force(new RegExp(control.force.pattern), control.force.fault as never, control.force.times);
    return json(200, { ok: true });
  });
  return router;
}

function withResource(name: string, fn: (resource: TicketingResource) => Reply): Reply {
  return (TICKETING_RESOURCES as readonly string[]).includes(name) ? fn(name as TicketingResource) : failure(404, `unknown ticketing resource ${name}`);
}

function ndjson(rows: Iterable<unknown>): Reply {
  let body = '';
  for (const row of rows) body += JSON.stringify(row) + '\n';
  return { status: 200, body, contentType: 'application/x-ndjson' };
}
