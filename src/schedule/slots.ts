import { Cron } from 'croner';
import type { Schedule } from './schedule-config.js';

/** The timetable of a schedule, in its time zone (croner handles DST: a slot in a skipped hour runs once, a repeated hour once). */
function timetable(schedule: Pick<Schedule, 'cron' | 'timeZone'>): Cron {
  return new Cron(schedule.cron, { timezone: schedule.timeZone, paused: true });
}

/** The next `count` slots strictly after `after`. */
export function nextSlots(schedule: Pick<Schedule, 'cron' | 'timeZone'>, after: Date, count: number): Date[] {
  return timetable(schedule).nextRuns(count, after);
}

/**
 * The slots in (`after`, `upTo`]: how many (counted up to `limit`) and the latest. The
 * scheduler runs only the latest, once, however many were missed.
 */
export function slotsBetween(schedule: Pick<Schedule, 'cron' | 'timeZone'>, after: Date, upTo: Date, limit = 1000): { latest?: Date; count: number } {
  let latest: Date | undefined;
  let count = 0;
  const cron = timetable(schedule);
  let cursor: Date | null = cron.nextRun(after);
  while (cursor && cursor.getTime() <= upTo.getTime() && count < limit) {
    latest = cursor;
    count += 1;
    cursor = cron.nextRun(cursor);
  }
  if (count === limit) latest = cron.previousRuns(1, upTo)[0] ?? latest;
  return { latest, count };
}

/** `2026-03-29 03:00 CEST`: a slot as its schedule's clock on the wall shows it. */
export function wallTime(slot: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZoneName: 'short' }).formatToParts(slot);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  const seconds = part('second') === '00' ? '' : `:${part('second')}`;
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}${seconds} ${part('timeZoneName')}`;
}
