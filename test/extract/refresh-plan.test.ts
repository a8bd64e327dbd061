import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { familiesOf, planRefresh, type RefreshInputs } from '../../src/extract/refresh-plan.js';
import { SnapshotState } from '../../src/extract/snapshot-state.js';
import { JournalWriter } from '../../src/listen/journal-writer.js';
import type { ReceiverState } from '../../src/listen/receiver-state.js';
import type { PushSubscription } from '../../src/listen/subscription-api.js';
import { ENGAGEMENT_ENDPOINTS, type EngagementSettings } from '../../src/sources/engagement/index.js';
import { tempDataDir } from '../helpers/cli.js';

const NOW = new Date();
const HOUR = 3_600_000;
/** An ISO time `seconds` before the run starts. */
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000).toISOString();

function receiver(overrides: Partial<ReceiverState> = {}): ReceiverState {
  const at = new Date(NOW.getTime() - 2 * HOUR).toISOString();
  return { version: 1, pid: process.pid, host: hostname(), segment: 'x', listeningOn: 'http://127.0.0.1:1', publicUrl: 'http://127.0.0.1:1', subscriptionId: '64', coveredSince: at, heartbeatAt: NOW.toISOString(), ...overrides };
}

const healthy: PushSubscription = { id: '64', url: 'u', isEnabled: true, isValidated: true, event: 'CustomerProfile', failingSince: null };

/** Inputs with a full snapshot of every family an hour ago, a healthy receiver and subscription. */
async function inputs(overrides: Partial<RefreshInputs<EngagementSettings>> = {}): Promise<RefreshInputs<EngagementSettings>> {
  const dataDir = overrides.dataDir ?? tempDataDir();
  const snapshots = await SnapshotState.open(dataDir, 'engagement');
  await snapshots.record([...familiesOf(ENGAGEMENT_ENDPOINTS).keys()], 'r', new Date(NOW.getTime() - HOUR));
  return {
    endpoints: ENGAGEMENT_ENDPOINTS, dataDir, now: NOW, fullRefresh: false, snapshotCron: '0 0 1 1 *', readEveryRun: ['subscriptions'], settleSeconds: 30,
    snapshots, receiver: receiver(), subscription: async () => healthy, ...overrides,
  };
}

describe('planRefresh', () => {
  it('groups endpoints into families by the fan-outs they feed', () => {
    expect(Object.fromEntries(familiesOf(ENGAGEMENT_ENDPOINTS))).toEqual({
      customer_profiles: ['customer_profiles', 'consents', 'identities', 'loyalty_summaries'],
      campaign_apps: ['campaign_apps'],
      participants: ['participants'],
      subscriptions: ['subscriptions'],
      leaderboard_seasons: ['leaderboard_seasons', 'top_positions'],
      context_nodes: ['context_nodes'],
    });
  });

  it('reads every endpoint in full without a receiver', async () => {
    const plan = await planRefresh(await inputs({ receiver: undefined }));
    expect(plan.endpoints.map((e) => e.name)).toEqual(ENGAGEMENT_ENDPOINTS.map((e) => e.name));
    expect(plan.changes).toBeUndefined();
  });

  it('re-reads by key the profiles the journal names, and leaves families without a change signal to the schedule', async () => {
    const dataDir = tempDataDir();
    const journal = await JournalWriter.open(dataDir);
    await journal.append({ at: ago(60), ids: ['1000001', '1000002'] });
    await journal.close();
    const plan = await planRefresh(await inputs({ dataDir }));
    expect(plan.endpoints.map((e) => e.name)).toEqual(['customer_profiles', 'consents', 'identities', 'loyalty_summaries', 'subscriptions']);
    const profiles = plan.endpoints[0]!;
    expect(profiles).toMatchObject({ path: '/customerinsights/customerprofiles/{id}', paging: { style: 'none' }, readsSubset: true });
    expect(profiles.fanOut!.children!(undefined, {} as EngagementSettings).map((child) => child.params)).toEqual([{ id: '1000001' }, { id: '1000002' }]);
    expect(plan.endpoints.slice(1, 4).every((e) => e.readsSubset)).toBe(true);
    expect(plan.skipped.get('participants')).toMatch(/snapshot schedule/);
    expect(plan.changes).toMatchObject({ mode: 'targeted', profiles: 2 });
  });

  it('reads in full the families of tables a load skipped a difference of, until a run wrote them whole', async () => {
    const dataDir = tempDataDir();
    const journal = await JournalWriter.open(dataDir);
    await journal.append({ at: 'a', ids: ['1000001'] });
    await journal.close();
    const planned = await inputs({ dataDir });
    await planned.snapshots.markWhole(new Map([['people', 'the load skipped difference run r2 of people'], ['participants', 'the load skipped difference run r2 of participants']]));
    const plan = await planRefresh({ ...planned, snapshots: await SnapshotState.open(dataDir, 'engagement') });
    expect(plan.endpoints.map((e) => e.name)).toEqual(['customer_profiles', 'consents', 'identities', 'loyalty_summaries', 'participants', 'subscriptions']);
    expect(plan.endpoints.some((e) => e.readsSubset)).toBe(false);
    expect(plan.notes.get('customer_profiles')).toBe('full snapshot: the load skipped difference run r2 of people');
    expect(plan.changes).toMatchObject({ mode: 'full' });

    const state = await SnapshotState.open(dataDir, 'engagement');
    expect([...state.wholeTables()]).toEqual(['people', 'participants']);
    await state.record(['customer_profiles'], 'r3', NOW, ['customer_profiles', 'people']);
    const after = await SnapshotState.open(dataDir, 'engagement');
    expect([...after.wholeTables()]).toEqual(['participants']);
    expect(after.lastFull('customer_profiles')).toEqual(NOW);
  });

  it('takes a full snapshot of the profiles when the subscription is disabled or a delivery named no profile', async () => {
    const disabled = await planRefresh(await inputs({ subscription: async () => ({ ...healthy, isEnabled: false }) }));
    expect(disabled.notes.get('customer_profiles')).toBe('full snapshot: the push subscription 64 is disabled');
    expect(disabled.endpoints[0]!.readsSubset).toBeUndefined();
    const unreachable = await planRefresh(await inputs({ subscription: async () => 'connection refused' }));
    expect(unreachable.notes.get('customer_profiles')).toBe('full snapshot: the push subscription could not be read (connection refused)');

    const dataDir = tempDataDir();
    const journal = await JournalWriter.open(dataDir);
    await journal.append({ at: ago(60), unparsed: true });
    await journal.close();
    const unparsed = await planRefresh(await inputs({ dataDir }));
    expect(unparsed.notes.get('customer_profiles')).toBe('full snapshot: 1 delivery named no customer profile fanlake could read');
    expect(unparsed.changes).toMatchObject({ mode: 'full' });
  });

  it('takes only changes that arrived settleSeconds before the run, and leaves younger ones and what follows them for the next', async () => {
    const dataDir = tempDataDir();
    const journal = await JournalWriter.open(dataDir);
    await journal.append({ at: ago(45), ids: ['1000001'] });
    await journal.append({ at: ago(31), ids: ['1000002'] });
    await journal.append({ at: ago(29), ids: ['1000003'] });
    await journal.append({ at: ago(40), ids: ['1000004'] });
    await journal.close();
    const plan = await planRefresh(await inputs({ dataDir }));
    expect(plan.endpoints[0]!.fanOut!.children!(undefined, {} as EngagementSettings).map((child) => child.params)).toEqual([{ id: '1000001' }, { id: '1000002' }]);
    expect(plan.notes.get('customer_profiles')).toBe('re-read 2 changed customer profiles (push subscription); 2 changes that arrived less than listen.settleSeconds (30 s) before this run left for the next');
    // The run consumes up to the first young line: the next run, a minute later, takes the rest.
    const next = await planRefresh(await inputs({ dataDir, now: new Date(NOW.getTime() + 60_000) }));
    expect(next.changes!.through.offset).toBeGreaterThan(plan.changes!.through.offset);
    const young = await planRefresh(await inputs({ dataDir, settleSeconds: 3_600 }));
    expect(young.skipped.get('customer_profiles')).toMatch(/^no customer profile changed since the last run \(push subscription\); 4 changes that arrived less than/);
    expect(young.changes).toMatchObject({ mode: 'targeted', profiles: 0 });

    // A full snapshot covers only settled changes too.
    const full = await planRefresh(await inputs({ dataDir, fullRefresh: true }));
    expect(full.changes).toEqual({ mode: 'full', profiles: 0, through: plan.changes!.through });
  });

  it('takes a full snapshot, saying why, when the journal holds unreadable lines, dropped segments or a damaged consumed mark, and never fails for them', async () => {
    const dataDir = tempDataDir();
    const journal = await JournalWriter.open(dataDir);
    await journal.append({ at: ago(60), ids: ['1000001'] });
    await journal.close();
    const segment = join(dataDir, 'listen', 'journal', `${journal.segment}.ndjson`);
    appendFileSync(segment, `{"at":"${ago(59)}","ids":["10{"at":"${ago(58)}","ids":["1000002"]}\n`);
    appendFileSync(segment, `${JSON.stringify({ at: ago(57), ids: ['1000003'] })}\n`);
    const unreadable = await planRefresh(await inputs({ dataDir }));
    expect(unreadable.notes.get('customer_profiles')).toBe('full snapshot: 1 unreadable line in the change journal (skipped)');
    expect(unreadable.changes).toMatchObject({ mode: 'full', through: { offset: readFileSync(segment).length } });
    // Due by the schedule as well: both reasons are given.
    const due = await planRefresh(await inputs({ dataDir, snapshotCron: '* * * * *' }));
    expect(due.notes.get('customer_profiles')).toMatch(/^full snapshot: the snapshot schedule .*; 1 unreadable line in the change journal \(skipped\)$/);

    const dropped = tempDataDir();
    const writer = await JournalWriter.open(dropped);
    await writer.append({ at: ago(60), dropped: { segments: 3, bytes: 12_000_000 } });
    await writer.close();
    expect((await planRefresh(await inputs({ dataDir: dropped }))).notes.get('customer_profiles')).toBe(
      `full snapshot: the change journal went over listen.journalMaxBytes with no run consuming it: 3 segments (12000000 bytes) dropped unread at ${ago(60)}`,
    );

    writeFileSync(join(dataDir, 'listen', 'consumed.json'), 'not json');
    expect((await planRefresh(await inputs({ dataDir }))).notes.get('customer_profiles')).toMatch(/^full snapshot: listen\/consumed\.json is damaged/);
  });

  it('takes a full snapshot when the receiver\'s heartbeat is stale', async () => {
    const stale = await planRefresh(await inputs({ receiver: receiver({ heartbeatAt: new Date(NOW.getTime() - HOUR).toISOString() }) }));
    expect(stale.notes.get('customer_profiles')).toMatch(/^full snapshot: the receiver's last heartbeat is \d+ s old$/);
  });
});
