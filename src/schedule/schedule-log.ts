import { appendFileSync, mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { redact } from '../core/secrets.js';

/** `$FANLAKE_DATA_DIR/schedule/log.ndjson`: one JSON line per job. */
export function scheduleLogPath(dataDir: string): string {
  return join(dataDir, 'schedule', 'log.ndjson');
}

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
 * Appends one entry. Synchronous on purpose: it is also written from a signal handler just
 * before the process exits, and one short line per job costs nothing.
 */
export function appendLogEntry(dataDir: string, entry: LogEntry): void {
  const path = scheduleLogPath(dataDir);
  mkdirSync(join(dataDir, 'schedule'), { recursive: true });
  appendFileSync(path, `${redact(JSON.stringify(entry))}\n`);
}

/** Every readable entry, oldest first; a torn last line (a crash mid-write) is skipped. */
export async function readLog(dataDir: string): Promise<LogEntry[]> {
  let text: string;
  try {
    text = await readFile(scheduleLogPath(dataDir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const entries: LogEntry[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const parsed = logEntrySchema.safeParse(JSON.parse(line));
      if (parsed.success) entries.push(parsed.data);
    } catch {
      // a torn line
    }
  }
  return entries;
}

/** The newest entry of each schedule. */
export function lastEntries(entries: readonly LogEntry[]): Map<string, LogEntry> {
  const last = new Map<string, LogEntry>();
  for (const entry of entries) last.set(entry.schedule, entry);
  return last;
}
