import { Cron } from 'croner';
import { UsageError } from '../core/errors.js';
import { errorMessage } from '../core/errors.js';
import { type ChangesSince, type JournalPosition, readChangesSince, readConsumedMark } from '../listen/journal.js';
import { coverageGap, type ReceiverState } from '../listen/receiver-state.js';
import type { PushSubscription } from '../listen/subscription-api.js';
import { type ChildRequest, type EndpointDeclaration, tablesOf } from '../sources/endpoint-declaration.js';
import type { SnapshotState } from './snapshot-state.js';

/** What decides how a snapshot source is read this run. */
export interface RefreshInputs<S> {
  readonly endpoints: readonly EndpointDeclaration<S>[];
  readonly dataDir: string;
  readonly now: Date;
  readonly fullRefresh: boolean;
  /** Tables asked for (`--resource`); all when absent. Asked-for tables are read whatever the schedule says. */
  readonly only?: readonly string[];
  /** When full snapshots are due: a cron read in UTC. */
  readonly snapshotCron: string;
  /** Tables whose endpoints are read in full every run, as without a subscription. */
  readonly readEveryRun: readonly string[];
  readonly snapshots: SnapshotState;
  /** A recorded change is taken only by a run that starts at least this long after it arrived (`listen.settleSeconds`). */
  readonly settleSeconds: number;
  /** The receiver's state; undefined when `fanlake listen` never ran with this data directory. */
  readonly receiver: ReceiverState | undefined;
  /** Reads the receiver's subscription; a string says why it could not be read. */
  readonly subscription: (id: string) => Promise<PushSubscription | undefined | string>;
}

/** How a run reads a snapshot source: what to read in full, what by key, what to leave for the schedule. */
export interface RefreshPlan<S> {
  /** The declarations to read: those read by key are rewritten to read only the changed records. */
  readonly endpoints: EndpointDeclaration<S>[];
  /** Tables not read this run, and why (each becomes a skipped result). */
  readonly skipped: ReadonlyMap<string, string>;
  /** A note for the result of each family's root read, by table: why in full, or what was re-read. */
  readonly notes: ReadonlyMap<string, string>;
  /** Roots of the families read in full: recorded as snapshots when every table of the family completed. */
  readonly fullRoots: ReadonlySet<string>;
  /** Every endpoint of each family, by its root's name. */
  readonly families: ReadonlyMap<string, readonly string[]>;
  /**
   * The change journal up to where this run covers it, when the family with the change
   * signal completes: load then marks it consumed. Absent without a subscription.
   */
  readonly changes?: { readonly through: JournalPosition; readonly mode: 'targeted' | 'full'; readonly profiles: number };
}

/**
 * Decides, before a run reads anything, how each endpoint of a snapshot source is read.
 * An endpoint and the fan-outs fed by it form a family, named after its root.
 *
 * Without a receiver (`fanlake listen` never ran here) every family is read in full, as
 * always. With one, the family whose root can be read by key (customer profiles: the
 * profile, its people, consents, identities and loyalty) reads only the profiles the
 * journal names since the last consumed position, unless a full snapshot is needed: on
 * `--full-refresh`, when none was taken yet or the snapshot schedule has a slot since the
 * last one, when a load skipped a difference of one of its tables (SnapshotState.markWhole), when the receiver did not cover every change since that snapshot began (down,
 * restarted, never validated), when the subscription is missing, disabled, not validated
 * or reports `failingSince`, or when the journal cannot say what changed (a delivery that
 * named no profile, an unreadable line, segments dropped over its bound, a damaged consumed
 * mark). Only changes that arrived `settleSeconds` before the run are taken. Families without a
 * change signal are read in full when their slot of the schedule is due (or they are
 * listed in `readEveryRun`, or asked for), and left as they are otherwise.
 */
export async function planRefresh<S>(inputs: RefreshInputs<S>): Promise<RefreshPlan<S>> {
  const { endpoints, receiver } = inputs;
  const families = familiesOf(endpoints);
  const fullRoots = new Set<string>();
  const notes = new Map<string, string>();
  const skipped = new Map<string, string>();
  if (!receiver) {
    for (const root of families.keys()) fullRoots.add(root);
    return { endpoints: [...endpoints], skipped, notes, fullRoots, families };
  }

  const byName = new Map(endpoints.map((endpoint) => [endpoint.name, endpoint]));
  const tablesOfFamily = (root: string) => familyTables(endpoints, families, root);
  const schedule = cronOf(inputs.snapshotCron);
  /** Why a family is due for a full read (by the schedule, or a load that skipped a difference of it), or undefined when its last full read is recent enough. */
  const dueBySchedule = (root: string): string | undefined => {
    const marked = tablesOfFamily(root).map((table) => inputs.snapshots.wholeNeeded(table)).find((why) => why !== undefined);
    if (marked) return marked;
    const last = inputs.snapshots.lastFull(root);
    if (!last) return 'no full snapshot yet';
    const slot = schedule.nextRun(last);
    return slot && slot.getTime() <= inputs.now.getTime() ? `the snapshot schedule (${inputs.snapshotCron} UTC) had a slot at ${slot.toISOString()}` : undefined;
  };

  const read: EndpointDeclaration<S>[] = [];
  let changes: RefreshPlan<S>['changes'];
  for (const [root, members] of families) {
    const rootEndpoint = byName.get(root)!;
    const tables = tablesOfFamily(root);
    // A family nothing asked for is not read (fan-outs stay within their family).
    if (inputs.only && !tables.some((table) => inputs.only!.includes(table))) continue;
    if (rootEndpoint.byKey) {
      const decision = await changeSignalDecision(inputs, root, dueBySchedule(root));
      if (decision.mode === 'full') {
        fullRoots.add(root);
        notes.set(root, `full snapshot: ${decision.why}`);
        read.push(...members.map((name) => byName.get(name)!));
        changes = decision.through === undefined ? undefined : { through: decision.through, mode: 'full', profiles: 0 };
        continue;
      }
      changes = decision.through === undefined ? undefined : { through: decision.through, mode: 'targeted', profiles: decision.ids.length };
      const later = decision.waiting > 0 ? `; ${plural(decision.waiting, 'change')} that arrived less than listen.settleSeconds (${inputs.settleSeconds} s) before this run left for the next` : '';
      if (decision.ids.length === 0) {
        for (const table of tables) skipped.set(table, `no customer profile changed since the last run (push subscription)${later}`);
        continue;
      }
      notes.set(root, `re-read ${plural(decision.ids.length, 'changed customer profile')} (push subscription)${later}`);
      read.push(...members.map((name) => (name === root ? byKeyDeclaration(rootEndpoint, decision.ids) : { ...byName.get(name)!, readsSubset: true })));
      continue;
    }
    const asked = inputs.only !== undefined;
    const everyRun = tables.some((table) => inputs.readEveryRun.includes(table));
    const due = inputs.fullRefresh ? '--full-refresh' : dueBySchedule(root);
    if (asked || everyRun || due) {
      fullRoots.add(root);
      read.push(...members.map((name) => byName.get(name)!));
      if (due && !everyRun) notes.set(root, `full snapshot: ${due}`);
      continue;
    }
    const next = schedule.nextRun(inputs.now);
    for (const table of tables) skipped.set(table, `no change signal: read on the snapshot schedule${next ? ` (next slot ${next.toISOString()})` : ''}, or name it in FANLAKE_ENGAGEMENT_READ_EVERY_RUN`);
  }
  return { endpoints: read, skipped, notes, fullRoots, families, changes };
}

type ChangeSignalDecision =
  | { mode: 'full'; why: string; through: JournalPosition | undefined }
  | { mode: 'targeted'; ids: string[]; waiting: number; through: JournalPosition | undefined };

/**
 * Full snapshot or targeted re-read for the family with the change signal, and how far into
 * the journal it covers. Either way only changes that arrived `settleSeconds` before the run
 * count as covered: the platform may push a change before it serves the new record, so a read
 * right after the push could miss it. Younger ones are left for the next run.
 */
async function changeSignalDecision<S>(inputs: RefreshInputs<S>, root: string, due: string | undefined): Promise<ChangeSignalDecision> {
  const consumed = await readConsumedMark(inputs.dataDir);
  const changes = await readChangesSince(inputs.dataDir, consumed.position, { settledBefore: new Date(inputs.now.getTime() - inputs.settleSeconds * 1000) });
  const troubles = journalTroubles(changes, consumed.damaged);
  // A full snapshot covers every change recorded before it started; what the journal could not say is said with its reason.
  const full = (why: string): ChangeSignalDecision => ({ mode: 'full', why: [why, ...troubles].join('; '), through: changes.through });
  if (inputs.fullRefresh) return full('--full-refresh');
  if (due) return full(due);
  const gap = coverageGap(inputs.receiver, inputs.snapshots.lastFull(root)!, inputs.now);
  if (gap) return full(gap);
  const subscriptionId = inputs.receiver!.subscriptionId!;
  const subscription = await inputs.subscription(subscriptionId).catch((error: unknown) => errorMessage(error));
  if (typeof subscription === 'string') return full(`the push subscription could not be read (${subscription})`);
  if (!subscription) return full(`the push subscription ${subscriptionId} no longer exists`);
  if (!subscription.isEnabled || !subscription.isValidated) return full(`the push subscription ${subscriptionId} is ${subscription.isEnabled ? 'not validated' : 'disabled'}`);
  if (subscription.failingSince) return full(`the push subscription reports failingSince ${subscription.failingSince}`);
  if (troubles.length > 0) return { mode: 'full', why: troubles.join('; '), through: changes.through };
  return { mode: 'targeted', ids: changes.ids, waiting: changes.waiting, through: changes.through };
}

/** What in the journal leaves changes unknown, each a reason for a full snapshot. */
function journalTroubles(changes: ChangesSince, consumedDamaged: boolean): string[] {
  const troubles: string[] = [];
  if (consumedDamaged) troubles.push('listen/consumed.json is damaged, so which recorded changes are in the warehouse is unknown (it is written anew)');
  for (const drop of changes.dropped) troubles.push(`the change journal went over listen.journalMaxBytes with no run consuming it: ${plural(drop.segments, 'segment')} (${drop.bytes} bytes) dropped unread at ${drop.at}`);
  if (changes.unreadable > 0) troubles.push(`${plural(changes.unreadable, 'unreadable line')} in the change journal (skipped)`);
  if (changes.unparsed > 0) troubles.push(`${changes.unparsed} deliver${changes.unparsed === 1 ? 'y' : 'ies'} named no customer profile fanlake could read`);
  return troubles;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/**
 * Families of endpoints: each endpoint without a fan-out parent is a root, and a fan-out
 * belongs to the family of the endpoint whose table feeds it. Roots keep declaration order.
 */
export function familiesOf<S>(endpoints: readonly EndpointDeclaration<S>[]): Map<string, string[]> {
  const rootOfTable = new Map<string, string>();
  const families = new Map<string, string[]>();
  for (const endpoint of endpoints) {
    const parent = endpoint.fanOut?.parent;
    const root = parent === undefined ? endpoint.name : (rootOfTable.get(parent) ?? endpoint.name);
    for (const table of tablesOf(endpoint)) rootOfTable.set(table.name, root);
    families.set(root, [...(families.get(root) ?? []), endpoint.name]);
  }
  return families;
}

/** Every table the endpoints of a family write, in declaration order. */
export function familyTables<S>(endpoints: readonly EndpointDeclaration<S>[], families: ReadonlyMap<string, readonly string[]>, root: string): string[] {
  const members = new Set(families.get(root) ?? []);
  return endpoints.filter((endpoint) => members.has(endpoint.name)).flatMap((endpoint) => tablesOf(endpoint).map((table) => table.name));
}

/** An endpoint rewritten to read the named records one by one through its single-record path. */
function byKeyDeclaration<S>(endpoint: EndpointDeclaration<S>, ids: readonly string[]): EndpointDeclaration<S> {
  const { byKey } = endpoint;
  const children: ChildRequest[] = ids.map((id) => ({ params: { [byKey!.key]: id }, label: byKey!.label }));
  return { ...endpoint, path: byKey!.path, paging: { style: 'none' }, fanOut: { children: () => children }, readsSubset: true, readsByKey: true };
}

function cronOf(expression: string): Cron {
  try {
    return new Cron(expression, { timezone: 'UTC', paused: true });
  } catch (error) {
    throw new UsageError(`configuration engagement.snapshotCron: ${errorMessage(error)}`, { key: 'engagement.snapshotCron' });
  }
}

/**
 * When the snapshot schedule next asks for a full read of a family last read whole at
 * `lastFull`: its first slot after that read (already past when the next run takes it),
 * undefined without a slot. Receiver gaps are not weighed here (`coverageGap`).
 */
export function nextScheduledSnapshot(snapshotCron: string, lastFull: Date): Date | undefined {
  return cronOf(snapshotCron).nextRun(lastFull) ?? undefined;
}
