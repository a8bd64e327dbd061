import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { coverageGap, markReceiverFailing, readReceiverState, writeReceiverState } from '../../src/listen/receiver-state.js';
import { tempDataDir } from '../helpers/cli.js';

describe('the receiver state', () => {
  it('marks a receiver failing, keeping what the last one wrote, and a failing receiver is a gap in coverage', async () => {
    const dataDir = tempDataDir();
    const since = new Date('2026-06-01T10:00:00Z');
    // Nothing ran before: the state says only that it is failing.
    await markReceiverFailing(dataDir, since, 'listen EADDRINUSE', new Date('2026-06-01T10:00:01Z'));
    const first = await readReceiverState(dataDir);
    expect(first).toMatchObject({ failingSince: since.toISOString(), failure: 'listen EADDRINUSE', stoppedAt: '2026-06-01T10:00:01.000Z', listeningOn: '' });
    expect(first!.subscriptionId).toBeUndefined();
    expect(coverageGap(first, since)).toBe('the receiver has been failing since 2026-06-01T10:00:00.000Z (listen EADDRINUSE)');

    // After a receiver that ran: its subscription, coverage and last delivery stay for status.
    const now = new Date();
    await writeReceiverState(dataDir, { version: 1, pid: process.pid, host: hostname(), segment: 's', listeningOn: 'http://127.0.0.1:1', publicUrl: 'http://127.0.0.1:1', subscriptionId: '64', coveredSince: now.toISOString(), heartbeatAt: now.toISOString(), lastDeliveryAt: now.toISOString() });
    expect(coverageGap(await readReceiverState(dataDir), now)).toBeUndefined();
    await markReceiverFailing(dataDir, since, 'the receiver was killed');
    const marked = await readReceiverState(dataDir);
    expect(marked).toMatchObject({ subscriptionId: '64', coveredSince: now.toISOString(), lastDeliveryAt: now.toISOString(), failingSince: since.toISOString(), stoppedAt: expect.any(String) });
    expect(coverageGap(marked, now)).toMatch(/^the receiver has been failing since .* \(the receiver was killed\)$/);
  });
});
