import { appendFileSync, closeSync, mkdirSync, openSync, readdirSync, readSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { redact } from '../core/secrets.js';

/**
 * `$FANLAKE_DATA_DIR/schedule/log.ndjson`: one JSON line per job, and one per outage of the
 * push receiver and its recovery. It rotates weekly to `log-<first entry>.ndjson` beside it.
 */
export function scheduleLogPath(dataDir: string): string {
  return join(scheduleDir(dataDir), LIVE_FILE);
}

/** `$FANLAKE_DATA_DIR/schedule`: the log and its rotated files. */
export function scheduleDir(dataDir: string): string {
  return join(dataDir, 'schedule');
}

const LIVE_FILE = 'log.ndjson';
/** A rotated file: `log-<UTC time of its first entry>.ndjson`, so names sort oldest first. */
const ROTATED_FILE = /^log-\d{8}T\d{6}Z(-\d+)?\.ndjson$/;
/** The live file is rotated once its first entry is this old... */
const ROTATE_AFTER_MS = 7 * 86_400_000;
/** ...or it grows past this, whichever comes first (a schedule firing every few seconds). */
const ROTATE_AT_BYTES = 8 * 1024 * 1024;

/**
 * `ok` / `failed`: the job ran; `missed`: its writer lock was not had within the bound, it runs
 * once when the writer is done; `stopped`: the scheduler was stopped before or during it;
 * `aborted`: a second signal ended it mid-step.
 */
export const JOB_OUTCOMES = ['ok', 'failed', 'missed', 'stopped', 'aborted'] as const;
export type JobOutcome = (typeof JOB_OUTCOMES)[number];

export const deliveryRecordSchema = z.object({
  channel: z.enum(['email', 'webhook']),
  status: z.enum(['sent', 'failed']),
  attempts: z.number().int(),
  error: z.string().optional(),
});
export type DeliveryRecord = z.infer<typeof deliveryRecordSchema>;

export const logEntrySchema = z.object({
  schedule: z.string(),
  /** The slot this job served (the latest, when several were missed). */
  slot: z.iso.datetime(),
  start: z.iso.datetime(),
  end: z.iso.datetime(),
  outcome: z.enum(JOB_OUTCOMES),
  runId: z.string().optional(),
  /** Slots served at once by this job: more than 1 after the scheduler was down or kept out. */
  slots: z.number().int().positive().optional(),
  error: z.string().optional(),
  deliveries: z.array(deliveryRecordSchema).optional(),
  /** Raw runs removed by housekeeping after the job. */
  pruned: z.object({ runs: z.number().int(), bytes: z.number().int() }).optional(),
});
export type LogEntry = z.infer<typeof logEntrySchema>;

/**
 * An outage of the push receiver that `fanlake schedule` runs (`down`, at its first failure,
 * with the alert's deliveries) or its recovery (`up`, with the notice's). Job readers skip
 * these lines: they name no schedule.
 */
export const receiverLogEntrySchema = z.object({
  receiver: z.enum(['down', 'up']),
  at: z.iso.datetime(),
  /** For `up`: when the outage began. */
  since: z.iso.datetime().optional(),
  error: z.string().optional(),
  deliveries: z.array(deliveryRecordSchema).optional(),
});
export type ReceiverLogEntry = z.infer<typeof receiverLogEntrySchema>;

/** How long rotated log files are kept; `now` is injectable for tests. */
export interface LogRetention {
  /** A rotated file goes once its newest entry is older than this; 0 keeps everything. */
  days: number;
  now?: Date;
}

/**
 * Appends one entry, rotating the live file first when it is due and removing rotated files
 * past the retention. Synchronous on purpose: it is also written from a signal handler just
 * before the process exits, and one short line per job costs nothing.
 */
export function appendLogEntry(dataDir: string, entry: LogEntry | ReceiverLogEntry, retention?: LogRetention): void {
  const path = scheduleLogPath(dataDir);
  mkdirSync(scheduleDir(dataDir), { recursive: true });
  if (retention) rotateLog(dataDir, retention.days, retention.now ?? new Date());
  appendFileSync(path, `${redact(JSON.stringify(entry))}\n`);
}

/**
 * Moves the live file aside when its first entry is a week old or it is over 8 MiB, and
 * deletes rotated files whose last write (their newest entry) is older than `days`.
 */
function rotateLog(dataDir: string, days: number, now: Date): void {
  const dir = scheduleDir(dataDir);
  const live = scheduleLogPath(dataDir);
  const size = fileSize(live);
  const first = size > 0 ? firstEntryTime(live) : undefined;
  if (size >= ROTATE_AT_BYTES || (first !== undefined && now.getTime() - first.getTime() >= ROTATE_AFTER_MS)) {
    const stamp = (first ?? now).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
    let name = `log-${stamp}.ndjson`;
    for (let k = 1; fileSize(join(dir, name)) >= 0; k++) name = `log-${stamp}-${k}.ndjson`;
    renameSync(live, join(dir, name));
  }
  if (days <= 0) return;
  const cutoff = now.getTime() - days * 86_400_000;
  for (const name of readdirSync(dir)) {
    if (!ROTATED_FILE.test(name)) continue;
    const path = join(dir, name);
    if (statSync(path).mtimeMs < cutoff) unlinkSync(path);
  }
}

/** The size of a file, -1 when there is none. */
function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return -1;
  }
}

/** When the first entry of a log file was written, read from its first line only. */
function firstEntryTime(path: string): Date | undefined {
  const buffer = Buffer.alloc(4096);
  const fd = openSync(path, 'r');
  let read: number;
  try {
    read = readSync(fd, buffer, 0, buffer.length, 0);
  } finally {
    closeSync(fd);
  }
  const line = buffer.subarray(0, read).toString('utf8').split('\n')[0]!;
  try {
    const value = JSON.parse(line) as { end?: unknown; at?: unknown };
    const at = Date.parse(String(value.end ?? value.at));
    return Number.isNaN(at) ? undefined : new Date(at);
  } catch {
    return undefined;
  }
}

/** The log files, oldest first: the rotated ones, then the live one. */
async function logFiles(dataDir: string): Promise<string[]> {
  const names = await readdir(scheduleDir(dataDir)).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  return [...names.filter((name) => ROTATED_FILE.test(name)).sort(), ...(names.includes(LIVE_FILE) ? [LIVE_FILE] : [])].map((name) => join(scheduleDir(dataDir), name));
}

/** Every readable line of the kept log that `schema` accepts, oldest first; a torn line (a crash mid-write) is skipped. */
async function readLines<T>(dataDir: string, schema: z.ZodType<T>): Promise<T[]> {
  const entries: T[] = [];
  for (const path of await logFiles(dataDir)) {
    const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '';
      throw error;
    });
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        const parsed = schema.safeParse(JSON.parse(line));
        if (parsed.success) entries.push(parsed.data);
      } catch {
        // a torn line
      }
    }
  }
  return entries;
}

/** Every job entry of the kept log, oldest first. */
export async function readLog(dataDir: string): Promise<LogEntry[]> {
  return readLines(dataDir, logEntrySchema);
}

/** Every outage and recovery of the receiver in the kept log, oldest first. */
export async function readReceiverLog(dataDir: string): Promise<ReceiverLogEntry[]> {
  return readLines(dataDir, receiverLogEntrySchema);
}

/** The newest entry of each schedule. */
export function lastEntries(entries: readonly LogEntry[]): Map<string, LogEntry> {
  const last = new Map<string, LogEntry>();
  for (const entry of entries) last.set(entry.schedule, entry);
  return last;
}
