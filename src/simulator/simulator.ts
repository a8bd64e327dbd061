import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { SimClock } from './clock.js';
import { FaultPlan } from './http/faults.js';
import { createSimulatorServer } from './http/server.js';
import { ENGAGEMENT_MODULES, type EngagementModule, type SimulatorOptions, type SimulatorOptionsInput, resolveSimulatorOptions } from './options.js';
import { EngagementData, type EngagementResource } from './population/engagement/index.js';
import type { NoiseKind, NoiseSystem } from './population/noise.js';
import { Population } from './population/population.js';
import { TICKETING_RESOURCES, TicketingData, type TicketingResource } from './population/ticketing/index.js';
import { Rng } from './random.js';
import type { Item } from './store/cursor-resource.js';
import { adminRouter } from './admin/routes.js';
import { CLUB_PROFILES, type ClubProfile } from './clubs/index.js';
import { type TicketingApiState, ticketingRouter } from './ticketing/routes.js';
import { type EngagementApiState, engagementRouter } from './engagement/routes.js';
import { UserTokens } from './engagement/user-tokens.js';
import { type ProfileChange, PushDelivery } from './engagement/push-delivery.js';
import { iso } from './population/time.js';
import { RenderedRecords } from './replay/rendered-records.js';
import { ReplayRouter } from './replay/replay-router.js';
import { ReplayBudget } from './replay/replay-budget.js';

/** One record's true person: what identity resolution is scored against. */
export interface TruthLink {
  readonly system: 'ticketing_user' | 'ticketing_member' | 'engagement_customer_profile' | 'engagement_person';
  readonly recordId: string;
  readonly personId: number;
  /** The noise kinds the record's system wrote its person with (simulator option `noise`); absent when none. */
  readonly noise?: readonly NoiseKind[];
}

/**
 * Both APIs, their data and the controls tests need, usable in-process
 * (`await Simulator.start({...})`) or behind `fanlake simulate`.
 */
export class Simulator {
  readonly options: SimulatorOptions;
  /** The club whose codes and texts the data carries, with their true meanings. */
  readonly club: ClubProfile;
  readonly clock: SimClock;
  readonly population: Population;
  readonly ticketing: TicketingData;
  readonly engagement: EngagementData;
  readonly faults: FaultPlan;
  /** The platform's pushes to subscriptions created through the API. */
  readonly push: PushDelivery;
  private readonly ticketingState: TicketingApiState;
  private readonly engagementState: EngagementApiState;
  private readonly replayBudget: ReplayBudget;
  private server?: Server;
  private baseUrl?: string;

  private constructor(input: SimulatorOptionsInput) {
    this.options = resolveSimulatorOptions(input);
    this.club = CLUB_PROFILES[this.options.clubProfile];
    this.clock = new SimClock(this.options.now);
    this.population = new Population(this.options.seed, this.options.scale, this.options.noise);
    this.ticketing = new TicketingData(this.population, this.clock.startMs, this.club);
    this.faults = new FaultPlan(this.options.seed, this.options.faults);
    this.replayBudget = new ReplayBudget(this.options.replayMemoryMb * 2 ** 20);
    const rendered = this.options.replay
      ? (Object.fromEntries(TICKETING_RESOURCES.map((name) => [name, new RenderedRecords(this.ticketing.byName[name], this.replayBudget)])) as Record<TicketingResource, RenderedRecords>)
      : undefined;
    this.ticketingState = { options: this.options, clock: this.clock, data: this.ticketing, mutateRate: this.options.mutate, rendered };
    this.engagement = new EngagementData(this.population, this.clock.startMs, this.options.orgId, this.club);
    this.push = new PushDelivery(this.engagement.subscriptions, this.clock, this.options.orgId, this.options.push);
    this.engagementState = {
      options: this.options,
      clock: this.clock,
      data: this.engagement,
      disabledModules: new Set(this.options.disabledModules),
      tokens: new UserTokens(this.options.seed),
      push: this.push,
    };
  }

  /** Builds the data and starts serving; `port: 0` takes any free port. */
  static async start(input: SimulatorOptionsInput = {}): Promise<Simulator> {
    const simulator = new Simulator(input);
    await simulator.listen();
    return simulator;
  }

  /** Builds the data without serving (for tests of the generators). */
  static build(input: SimulatorOptionsInput = {}): Simulator {
    return new Simulator(input);
  }

  get url(): string {
    if (!this.baseUrl) throw new Error('simulator is not listening');
    return this.baseUrl;
  }

  /** The environment that points fanlake at this simulator. */
  get env(): Record<string, string> {
    return {
      FANLAKE_TICKETING_URL: this.url,
      FANLAKE_TICKETING_TOKEN: this.options.ticketingToken,
      FANLAKE_ENGAGEMENT_URL: this.url,
      FANLAKE_ENGAGEMENT_API_KEY: this.options.engagementApiKey,
      FANLAKE_ENGAGEMENT_ORG_ID: this.options.orgId,
    };
  }

  set mutateRate(rate: number) {
    this.ticketingState.mutateRate = rate;
  }

  private async listen(): Promise<void> {
    const engagement = engagementRouter(this.engagementState);
    this.server = createSimulatorServer({
      api: [ticketingRouter(this.ticketingState), this.options.replay ? new ReplayRouter(engagement, this.replayBudget) : engagement],
      admin: this.options.admin ? adminRouter(this) : undefined,
      faults: this.faults,
      latencyMs: this.options.latencyMs,
      stallMs: this.options.stallMs,
      retryAfterSeconds: this.options.retryAfterSeconds,
    });
    const server = this.server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port, this.options.host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const host = this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host;
    this.baseUrl = `http://${host}:${port}`;
  }

  async close(): Promise<void> {
    this.push.close();
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  /** Every record's true person. */
  *truth(): Generator<TruthLink> {
    const { users, members } = this.ticketing;
    for (const index of users.timeline.indices()) {
      yield this.truthLink('ticketing_user', users.keyOf(users.record(index)), users.personOf(index));
    }
    for (const index of members.timeline.indices()) {
      yield this.truthLink('ticketing_member', members.keyOf(members.record(index)), members.personOf(index));
    }
    const { profiles, people } = this.engagement;
    for (const index of profiles.liveIndices()) {
      yield this.truthLink('engagement_customer_profile', String(profiles.idOf(index)), profiles.personOf(index));
    }
    for (const index of people.liveIndices()) {
      yield this.truthLink('engagement_person', String(people.idOf(index)), profiles.personOf(profiles.profileOfPeople(index)), 'engagement_customer_profile');
    }
  }

  private truthLink(system: TruthLink['system'], recordId: string, personId: number, writtenBy: NoiseSystem = system as NoiseSystem): TruthLink {
    if (!this.population.noise) return { system, recordId, personId };
    // a person record carries the names and e-mail of its customer profile, so its noise
    const { noise } = this.population.written(writtenBy, personId);
    return noise.length === 0 ? { system, recordId, personId } : { system, recordId, personId, noise };
  }

  /** The live records of an engagement resource as the API serves them (top positions: up to `positionCount`). */
  engagementRecords(resource: EngagementResource, options: { positionCount?: number } = {}): Generator<Record<string, unknown>> {
    return this.engagement.records(resource, options.positionCount);
  }

  /** Removes customer profiles (and their people) by id and pushes the change; returns the ids that were live. */
  removeCustomerProfiles(ids: string[]): string[] {
    const removed = ids.filter((id) => this.engagement.removeProfile(id));
    const at = iso(this.clock.now());
    this.push.notify(removed.map((id): ProfileChange => ({ id, changeType: 'deleted', changedDateTime: at })));
    return removed;
  }

  /**
   * Changes customer profiles now, the named ids or `count` random live ones: each gets a
   * new revision (a new address and picture, a new picture on its first person, one
   * more consent revoked), pushed to the subscriptions. Returns the ids.
   */
  changeCustomerProfiles(selection: { ids?: string[]; count?: number }): string[] {
    const { profiles } = this.engagement;
    const now = this.clock.now();
    let indices: number[];
    if (selection.ids) {
      indices = selection.ids.map((id) => profiles.indexOfId(id));
      const unknown = selection.ids.filter((_, k) => indices[k]! < 0);
      if (unknown.length > 0) throw new Error(`no live customer profile ${unknown.join(', ')}`);
    } else {
      const live = profiles.liveIndices();
      const rng = Rng.for(this.options.seed, 'admin-customer-profiles', live.length, now);
      const picked = new Set<number>();
      while (picked.size < Math.min(selection.count ?? 1, live.length)) picked.add(live[rng.int(0, live.length - 1)]!);
      indices = [...picked];
    }
    for (const index of indices) profiles.revisions.revise(index, now);
    const ids = indices.map((index) => String(profiles.idOf(index)));
    this.push.notify(ids.map((id): ProfileChange => ({ id, changeType: 'updated', changedDateTime: iso(now) })));
    return ids;
  }

  /** Switches an engagement module on or off for the organization. */
  setEngagementModule(module: EngagementModule, enabled: boolean): void {
    if (enabled) this.engagementState.disabledModules.delete(module);
    else this.engagementState.disabledModules.add(module);
  }

  /** Which engagement modules are on now. */
  engagementModules(): Record<EngagementModule, boolean> {
    const disabled = this.engagementState.disabledModules;
    return Object.fromEntries(ENGAGEMENT_MODULES.map((m) => [m, !disabled.has(m)])) as Record<EngagementModule, boolean>;
  }

  /** The user token cmtoken would return for a customer profile (for userapi calls in tests). */
  userToken(customerProfileId: string): string {
    return this.engagementState.tokens.issue(Number(customerProfileId));
  }

  /** The live records of a ticketing resource as the API would serve them now. */
  *ticketingRecords(resource: TicketingResource): Generator<Item> {
    const data = this.ticketing.byName[resource];
    for (const index of data.timeline.indices()) yield data.record(index);
  }

  /** Gives records a new version now: the named keys, or `count` random ones. Returns their keys. */
  touchTicketing(resource: TicketingResource, selection: { keys?: string[]; count?: number }): string[] {
    const data = this.ticketing.byName[resource];
    const indices = selection.keys ? this.indicesOf(resource, selection.keys) : this.randomIndices(resource, selection.count ?? 1);
    const now = this.clock.now();
    const keys = indices.map((index) => data.keyOf(data.record(index)));
    for (const index of indices) data.touch(index, now);
    return keys;
  }

  /** Adds `count` new records (copies of random ones under new keys). Returns their keys. */
  addTicketing(resource: TicketingResource, count: number): string[] {
    const data = this.ticketing.byName[resource];
    const now = this.clock.now();
    return this.randomIndices(resource, count).map((source) => data.keyOf(data.record(data.insertCopy(source, now))));
  }

  /** Adds records exactly as given (malformed ones included), updated now or at `atMs`. */
  addTicketingVerbatim(resource: TicketingResource, items: Item[], atMs = this.clock.now()): void {
    const data = this.ticketing.byName[resource];
    for (const item of items) data.insertVerbatim(item, atMs);
  }

  private indicesOf(resource: TicketingResource, keys: string[]): number[] {
    const data = this.ticketing.byName[resource];
    const wanted = new Set(keys);
    const found: number[] = [];
    for (const index of data.timeline.indices()) if (wanted.has(data.keyOf(data.record(index)))) found.push(index);
    if (found.length !== wanted.size) throw new Error(`unknown ${resource} keys among ${keys.join(', ')}`);
    return found;
  }

  private randomIndices(resource: TicketingResource, count: number): number[] {
    const timeline = this.ticketing.byName[resource].timeline;
    const rng = Rng.for(this.options.seed, `admin-${resource}`, timeline.size, this.clock.now());
    // Distinct records: "change 25 tickets" means 25 different ones.
    const picked = new Set<number>();
    while (picked.size < Math.min(count, timeline.count)) picked.add(timeline.at(rng.int(0, timeline.count - 1)));
    return [...picked];
  }
}

export { TICKETING_RESOURCES };
