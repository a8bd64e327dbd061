import { Cron } from 'croner';
import * as z from 'zod';
import type { LoadedConfig } from '../config/load-config.js';
import { UsageError } from '../core/errors.js';
import { SOURCES } from '../extract/run-extraction.js';

/** A cron pattern croner accepts: 5 fields, or 6 with seconds first. */
const cronPattern = z.string().superRefine((pattern, context) => {
  try {
    new Cron(pattern, { paused: true });
  } catch (error) {
    context.addIssue({ code: 'custom', message: `not a cron expression (${(error as Error).message.replace(/^CronPattern: /, '')})` });
  }
});

const ianaZone = z.string().refine((zone) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}, 'not an IANA time zone such as Europe/Oslo');

/**
 * Where a schedule's results go. E-mail uses the `smtp.*` settings and goes to `smtp.to`
 * unless the schedule names its own recipients; the webhook is `FANLAKE_WEBHOOK_URL`.
 */
const deliverySchema = z.strictObject({
  email: z.union([z.boolean(), z.strictObject({ to: z.array(z.email()).min(1) })]).optional(),
  webhook: z.boolean().optional(),
});

/**
 * One entry of `schedules` in the config file: structured, so it is the one setting without
 * an environment variable.
 */
export const scheduleSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be lowercase letters, digits, _ or -'),
  /** `0 6 * * 1` (06:00 on Mondays); a sixth leading field counts seconds. */
  cron: cronPattern,
  timeZone: ianaZone.default('UTC'),
  /** `run`: the whole job (extract, load, build, check, report); `reports`: render reports from the warehouse as it is. */
  job: z.enum(['run', 'reports']).default('run'),
  sources: z.array(z.enum(SOURCES)).min(1).optional(),
  /** Report names; every report when absent. */
  reports: z.array(z.string().min(1)).min(1).optional(),
  params: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String)).optional(),
  strict: z.boolean().default(false),
  deliver: deliverySchema.default({}),
  /** Whether reports showing personal data may be attached or linked; otherwise only their digest goes out. */
  personalData: z.boolean().default(false),
});

export type Schedule = z.infer<typeof scheduleSchema>;

/**
 * The schedules of the config file, validated. A problem is a UsageError (exit 2) naming the
 * schedule and the field.
 */
export function readSchedules(loaded: Pick<LoadedConfig, 'file'>): Schedule[] {
  const raw = loaded.file.schedules;
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new UsageError('config file key schedules: must be a list of schedules');
  const schedules: Schedule[] = [];
  raw.forEach((entry: unknown, index) => {
    const label = entry && typeof entry === 'object' && typeof (entry as { name?: unknown }).name === 'string' ? (entry as { name: string }).name : `#${index + 1}`;
    const parsed = scheduleSchema.safeParse(entry);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
      throw new UsageError(`schedule ${label}: ${field}${issue.message}`, { schedule: label });
    }
    if (schedules.some((s) => s.name === parsed.data.name)) throw new UsageError(`schedule ${label}: the name is used twice`, { schedule: label });
    schedules.push(parsed.data);
  });
  return schedules;
}
