import { describe, expect, it } from 'vitest';
import { RECEIVER_FAULT_EVENT, type ReceiverOutage, superviseReceiver } from '../../src/schedule/receiver-supervisor.js';
import type { Clock } from '../../src/schedule/scheduler.js';

/**
 * Drives the real supervisor with a receiver the test scripts: each start either throws
 * (`fail`), or becomes ready and then runs until the supervisor stops it, the test kills it
 * (RECEIVER_FAULT_EVENT) or it ends on its own (`end`). The clock jumps instead of waiting.
 */
async function supervise(script: ('fail' | 'ready' | 'end')[], onReady: (n: number, stop: () => void) => void) {
  let now = Date.parse('2026-06-01T00:00:00Z');
  const clock: Clock = { now: () => new Date(now), sleep: async (ms) => void (now += ms) };
  const stop = new AbortController();
  const events: string[] = [];
  const waits: number[] = [];
  let starts = 0;
  let readies = 0;
  await superviseReceiver({
    stop: stop.signal,
    restartMs: 1000,
    clock,
    random: () => 0.5,
    async run(attemptStop, ready) {
      const step = script[starts++] ?? 'ready';
      if (step === 'fail') throw new Error(`listen EADDRINUSE (start ${starts})`);
      ready(`http://127.0.0.1:${8000 + starts}`, '7');
      if (step === 'end') return;
      const stopped = new Promise((resolve) => attemptStop.addEventListener('abort', resolve, { once: true }));
      onReady(readies++, () => stop.abort());
      await stopped;
    },
    onFailure: async ({ error, attempt, waitMs }) => {
      events.push(`failure ${attempt}: ${error}`);
      waits.push(waitMs);
    },
    onDown: (outage: ReceiverOutage) => events.push(`DOWN since ${outage.since.toISOString()}: ${outage.error}`),
    onUp: ({ listeningOn, outage }) => events.push(`up on ${listeningOn}${outage ? ` after the outage since ${outage.since.toISOString()}` : ''}`),
  });
  return { events, waits, starts };
}

describe('superviseReceiver', () => {
  it('tells an outage once however many restarts fail, and its end once; restarts with growing waits', async () => {
    const { events, waits } = await supervise(['fail', 'fail', 'fail', 'ready'], (_, stop) => stop());
    expect(events).toEqual([
      'failure 1: listen EADDRINUSE (start 1)',
      'DOWN since 2026-06-01T00:00:00.000Z: listen EADDRINUSE (start 1)',
      'failure 2: listen EADDRINUSE (start 2)',
      'failure 3: listen EADDRINUSE (start 3)',
      'up on http://127.0.0.1:8004 after the outage since 2026-06-01T00:00:00.000Z',
    ]);
    // Half the ceiling and half a jittered share of it: 1 s, 2 s, 4 s ceilings.
    expect(waits).toEqual([750, 1500, 3000]);
  });

  it('restarts a receiver that was killed or ended on its own, one outage each, and stops it cleanly on stop', async () => {
    const { events, starts } = await supervise(['ready', 'end', 'ready'], (n, stop) => {
      if (n === 0) (process as NodeJS.EventEmitter).emit(RECEIVER_FAULT_EVENT, 'killed by the test');
      else stop();
    });
    expect(starts).toBe(3);
    expect(events).toEqual([
      'up on http://127.0.0.1:8001',
      'failure 1: killed by the test',
      'DOWN since 2026-06-01T00:00:00.000Z: killed by the test',
      'up on http://127.0.0.1:8002 after the outage since 2026-06-01T00:00:00.000Z',
      // The second start became ready, then ended by itself: a new outage, its wait back at the first.
      'failure 1: the receiver stopped on its own',
      'DOWN since 2026-06-01T00:00:00.750Z: the receiver stopped on its own',
      'up on http://127.0.0.1:8003 after the outage since 2026-06-01T00:00:00.750Z',
    ]);
  });
});
