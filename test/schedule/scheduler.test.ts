import { describe, expect, it } from 'vitest';
import { scheduleSchema } from '../../src/schedule/schedule-config.js';
import type { LogEntry } from '../../src/schedule/schedule-log.js';
import { type Clock, runScheduler } from '../../src/schedule/scheduler.js';

/** A clock that jumps instead of waiting. */
function fakeClock(start: string): Clock & { advance(ms: number): void } {
  let now = Date.parse(start);
  return {
    now: () => new Date(now),
    sleep: async (ms) => void (now += ms),
    advance: (ms) => void (now += ms),
  };
}

interface Job {
  schedule: string;
  slot: string;
  slots: number;
  at: string;
}

/** Runs the real scheduler on a fake clock until `jobs` jobs ran; `job` decides each outcome. */
async function simulate(options: { schedules: unknown[]; start: string; jobs: number; history?: LogEntry[]; job?: (n: number, clock: ReturnType<typeof fakeClock>) => LogEntry['outcome'] }) {
  const clock = fakeClock(options.start);
  const stop = new AbortController();
  const jobs: Job[] = [];
  const entries: LogEntry[] = [];
  let calls = 0;
  await runScheduler({
    schedules: options.schedules.map((s) => scheduleSchema.parse(s)),
    history: options.history ?? [],
    clock,
    stop: stop.signal,
    onEntry: (entry) => entries.push(entry),
    async runJob(schedule, slot, slots) {
      const at = clock.now().toISOString();
      const outcome = options.job?.(calls++, clock) ?? 'ok';
      if (outcome !== 'missed') jobs.push({ schedule: schedule.name, slot: slot.toISOString(), slots, at });
      if (jobs.length >= options.jobs) stop.abort();
      return { schedule: schedule.name, slot: slot.toISOString(), start: at, end: at, outcome, ...(outcome === 'missed' ? {} : { runId: `run-${calls}` }), ...(slots > 1 ? { slots } : {}) };
    },
  });
  return { jobs, entries };
}

describe('runScheduler on a fake clock', () => {
  it('fires each slot once across the spring and autumn DST changes in Europe/Berlin', async () => {
    const night = { name: 'night', cron: '30 2 * * *', timeZone: 'Europe/Berlin' };
    const spring = await simulate({ schedules: [night], start: '2026-03-27T12:00:00Z', jobs: 3 });
    // 02:30 CET, then 03:00 CEST (02:30 does not exist on the 29th), then 02:30 CEST.
    expect(spring.jobs.map((j) => j.slot)).toEqual(['2026-03-28T01:30:00.000Z', '2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z']);
    expect(spring.jobs.every((j) => j.at === j.slot)).toBe(true);

    const autumn = await simulate({ schedules: [night], start: '2026-10-23T12:00:00Z', jobs: 3 });
    // 02:30 happens twice on the 25th; the job runs once.
    expect(autumn.jobs.map((j) => j.slot)).toEqual(['2026-10-24T00:30:00.000Z', '2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']);
  });

  it('never overlaps: slots passing during a long job are served once, by the latest', async () => {
    const hourly = { name: 'hourly', cron: '0 * * * *' };
    const { jobs } = await simulate({
      schedules: [hourly],
      start: '2026-05-01T09:30:00Z',
      jobs: 2,
      job: (n, clock) => (n === 0 && clock.advance(3.5 * 3_600_000), 'ok'),
    });
    expect(jobs).toEqual([
      { schedule: 'hourly', slot: '2026-05-01T10:00:00.000Z', slots: 1, at: '2026-05-01T10:00:00.000Z' },
      { schedule: 'hourly', slot: '2026-05-01T13:00:00.000Z', slots: 3, at: '2026-05-01T13:30:00.000Z' },
    ]);
  });

  it('a schedule whose slots keep coming while its job runs does not starve another', async () => {
    const { jobs } = await simulate({
      schedules: [{ name: 'often', cron: '*/10 * * * *' }, { name: 'also', cron: '*/10 * * * *' }],
      start: '2026-05-01T09:55:00Z',
      jobs: 3,
      // Each job takes longer than the period.
      job: (_n, clock) => (clock.advance(12 * 60_000), 'ok'),
    });
    expect(jobs.map((j) => [j.schedule, j.slot, j.slots])).toEqual([
      ['often', '2026-05-01T10:00:00.000Z', 1],
      ['also', '2026-05-01T10:10:00.000Z', 2],
      ['often', '2026-05-01T10:20:00.000Z', 2],
    ]);
  });

  it('logs a slot kept out by a writer once as missed, and runs it when the writer is done', async () => {
    const { jobs, entries } = await simulate({
      schedules: [{ name: 'daily', cron: '0 6 * * *' }],
      start: '2026-05-01T05:00:00Z',
      jobs: 1,
      job: (n) => (n < 4 ? 'missed' : 'ok'),
    });
    expect(entries.map((e) => e.outcome)).toEqual(['missed', 'ok']);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.slot).toBe('2026-05-01T06:00:00.000Z');
  });

  it('catches up once after downtime, only for schedules that ran before', async () => {
    const history: LogEntry[] = [{ schedule: 'known', slot: '2026-05-01T06:00:00.000Z', start: '2026-05-01T06:00:00.000Z', end: '2026-05-01T06:00:01.000Z', outcome: 'ok', runId: 'r1' }];
    const { jobs } = await simulate({
      schedules: [{ name: 'known', cron: '0 6 * * *' }, { name: 'new', cron: '0 6 * * *' }],
      start: '2026-05-05T12:00:00Z',
      history,
      jobs: 1,
    });
    expect(jobs).toEqual([{ schedule: 'known', slot: '2026-05-05T06:00:00.000Z', slots: 4, at: '2026-05-05T12:00:00.000Z' }]);
  });
});
