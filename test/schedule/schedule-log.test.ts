import { mkdtempSync, readdirSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendLogEntry, type LogEntry, readLog, readReceiverLog, scheduleDir, scheduleLogPath } from '../../src/schedule/schedule-log.js';

const DAY = 86_400_000;
const T0 = Date.parse('2026-01-05T06:00:00Z');

function job(at: number): LogEntry {
  const iso = new Date(at).toISOString();
  return { schedule: 'nightly', slot: iso, start: iso, end: iso, outcome: 'ok', runId: '20260105T060000Z-abcdef' };
}

/** Appends as the scheduler would at `at`, and dates the file's last write to it (the test's clock, not the machine's). */
function appendAt(dataDir: string, at: number, entry: Parameters<typeof appendLogEntry>[1] = job(at)): void {
  appendLogEntry(dataDir, entry, { days: 90, now: new Date(at) });
  utimesSync(scheduleLogPath(dataDir), new Date(at), new Date(at));
}

describe('the schedule log', () => {
  it('rotates weekly, reads the rotated files with the live one, and removes a rotated file once its newest entry is past the retention', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fanlake-log-'));
    appendAt(dataDir, T0);
    appendAt(dataDir, T0 + 6 * DAY);
    appendAt(dataDir, T0 + 6 * DAY, { receiver: 'down', at: new Date(T0 + 6 * DAY).toISOString(), error: 'listen EADDRINUSE' });
    expect(readdirSync(scheduleDir(dataDir))).toEqual(['log.ndjson']);
    // The first entry is a week old: the live file moves aside, named after it.
    appendAt(dataDir, T0 + 7 * DAY);
    expect(readdirSync(scheduleDir(dataDir)).sort()).toEqual(['log-20260105T060000Z.ndjson', 'log.ndjson']);
    appendAt(dataDir, T0 + 14 * DAY);
    expect(readdirSync(scheduleDir(dataDir)).sort()).toEqual(['log-20260105T060000Z.ndjson', 'log-20260112T060000Z.ndjson', 'log.ndjson']);
    expect((await readLog(dataDir)).map((e) => (Date.parse(e.end) - T0) / DAY)).toEqual([0, 6, 7, 14]);
    expect((await readReceiverLog(dataDir)).map((e) => e.receiver)).toEqual(['down']);

    // 90 days after the first file's newest entry (day 6) it goes; the second (newest entry day 7) stays a day longer.
    appendAt(dataDir, T0 + 96 * DAY + 1);
    expect(readdirSync(scheduleDir(dataDir)).sort()).toEqual(['log-20260112T060000Z.ndjson', 'log-20260119T060000Z.ndjson', 'log.ndjson']);
    expect((await readLog(dataDir)).map((e) => Math.floor((Date.parse(e.end) - T0) / DAY))).toEqual([7, 14, 96]);
  });

  it('keeps every rotated file with a retention of 0', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fanlake-log-'));
    for (const day of [0, 7, 400]) appendLogEntry(dataDir, job(T0 + day * DAY), { days: 0, now: new Date(T0 + day * DAY) });
    expect(readdirSync(scheduleDir(dataDir))).toHaveLength(3);
    expect(await readLog(dataDir)).toHaveLength(3);
  });
});
