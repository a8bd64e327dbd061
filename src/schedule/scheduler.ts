import type { Schedule } from './schedule-config.js';
import type { LogEntry } from './schedule-log.js';
import { nextSlots, slotsBetween } from './slots.js';

/** Time as the scheduler sees it; injectable so tests need not wait for real slots. */
export interface Clock {
  now(): Date;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => new Date(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      // The listener goes with the timer: a long-running scheduler sleeps on one signal thousands of times.
      const onAbort = () => (clearTimeout(timer), resolve());
      const timer = setTimeout(() => (signal.removeEventListener('abort', onAbort), resolve()), ms);
      signal.addEventListener('abort', onAbort, { once: true });
    }),
};

/** Longest single sleep: a suspended laptop or a clock change is noticed within this. */
const MAX_SLEEP_MS = 60_000;
/** Pause before trying again for a lock after a missed slot, so a zero wait does not spin. */
const MISSED_RETRY_MS = 1_000;

export interface SchedulerOptions {
  schedules: readonly Schedule[];
  /** The log so far: a schedule that has run before catches up once on a slot missed while the scheduler was down. */
  history: readonly LogEntry[];
  /** Runs one job for a slot (`slots` > 1 when it serves several missed ones); never throws. */
  runJob(schedule: Schedule, slot: Date, slots: number): Promise<LogEntry>;
  /** Told of every entry to log: each job, and each slot that counts as missed (once per stretch). */
  onEntry(entry: LogEntry): void;
  /** Ends the loop once the running job is done. */
  stop: AbortSignal;
  clock?: Clock;
}

interface Pending {
  /** The latest slot due: the one the job serves. */
  slot: Date;
  /** The first slot due: jobs run oldest-waiting first, so a schedule whose slots keep coming cannot starve another. */
  since: Date;
  slots: number;
  missedLogged: boolean;
}

/**
 * Runs schedules until `stop`: one job at a time (never overlapping), the longest waiting
 * first. Slots that pass while a job runs, while the writer lock is held elsewhere, or while
 * the scheduler is down are coalesced: the latest runs once, not once per missed slot.
 */
export async function runScheduler(options: SchedulerOptions): Promise<void> {
  const clock = options.clock ?? systemClock;
  const start = clock.now();
  const states = options.schedules.map((schedule) => {
    const served = lastServedSlot(options.history, schedule.name);
    const state: { schedule: Schedule; cursor: Date; pending?: Pending } = { schedule, cursor: start };
    if (served) {
      const { latest, count } = slotsBetween(schedule, served, start);
      if (latest) state.pending = { slot: latest, since: latest, slots: count, missedLogged: false };
    }
    return state;
  });

  while (!options.stop.aborted) {
    const now = clock.now();
    for (const state of states) {
      const { latest, count } = slotsBetween(state.schedule, state.cursor, now);
      state.cursor = now;
      if (latest) state.pending = { slot: latest, since: state.pending?.since ?? latest, slots: (state.pending?.slots ?? 0) + count, missedLogged: state.pending?.missedLogged ?? false };
    }

    const due = states.filter((s) => s.pending).sort((a, b) => a.pending!.since.getTime() - b.pending!.since.getTime())[0];
    if (due) {
      const pending = due.pending!;
      const entry = await options.runJob(due.schedule, pending.slot, pending.slots);
      if (entry.outcome === 'missed') {
        if (!pending.missedLogged) options.onEntry(entry);
        pending.missedLogged = true;
        await clock.sleep(MISSED_RETRY_MS, options.stop);
        continue;
      }
      options.onEntry(entry);
      // A job interrupted before it started keeps its slot for the next start.
      if (entry.outcome !== 'stopped' || entry.runId) due.pending = undefined;
      continue;
    }

    const next = Math.min(...states.map((s) => nextSlots(s.schedule, now, 1)[0]?.getTime() ?? Infinity));
    await clock.sleep(Math.max(0, Math.min(MAX_SLEEP_MS, next - now.getTime())), options.stop);
  }
}

/** The newest slot a job of this schedule ran for; slots only missed or never started don't count. */
export function lastServedSlot(history: readonly LogEntry[], schedule: string): Date | undefined {
  const served = history.filter((entry) => entry.schedule === schedule && entry.runId !== undefined);
  return served.length > 0 ? new Date(served.at(-1)!.slot) : undefined;
}
