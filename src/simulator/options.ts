import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { CLUB_PROFILE_NAMES } from './clubs/index.js';

export const ENGAGEMENT_MODULES = ['apiApp', 'interact', 'create', 'loyalty', 'leaderboards'] as const;
export type EngagementModule = (typeof ENGAGEMENT_MODULES)[number];

const rate = z.coerce.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1');

/** Everything `fanlake simulate` and in-process tests can set; validated once here. */
export const SimulatorOptionsSchema = z.object({
  host: z.string().default('127.0.0.1'),
  port: z.coerce.number().int().min(0).max(65535).default(8787),
  seed: z.coerce.number().int().default(1),
  scale: z.coerce.number().positive('must be positive').max(20, 'at most 20').default(1),
  /** Added to every API response. */
  latencyMs: z.coerce.number().int().min(0).default(0),
  /** Share of API requests that fail the way real APIs fail. */
  faults: rate.default(0),
  /** After each page, this share of the page's item count gets a new last_update. */
  mutate: rate.default(0),
  /** How long a stalled request hangs before its connection is dropped. */
  stallMs: z.coerce.number().int().min(0).default(35_000),
  retryAfterSeconds: z.coerce.number().int().min(0).default(1),
  /** Pins the data's reference time: ISO date or epoch milliseconds. */
  now: z.union([z.number(), z.string()]).optional().transform((value, ctx) => {
    if (value === undefined) return undefined;
    const ms = typeof value === 'number' || /^\d+$/.test(value) ? Number(value) : Date.parse(value);
    if (Number.isNaN(ms)) ctx.addIssue({ code: 'custom', message: 'must be an ISO date or epoch milliseconds' });
    return ms;
  }),
  /** Real-world noise in names, e-mails, phones and households (docs/decisions.md "Simulator noise"). */
  noise: z.boolean().default(false),
  /** Serves /__admin/... (ground truth, record changes, fault control). */
  admin: z.boolean().default(false),
  /**
   * Whose codes, texts and conventions the data follows (src/simulator/clubs/): fanlake, the
   * club the default mapping was written for, or nordvik, a club that differs the way clubs do.
   */
  clubProfile: z.enum(CLUB_PROFILE_NAMES).default('fanlake'),
  /** Which documented variant /api/members follows. */
  membersVariant: z.enum(['zero-based', 'one-based']).default('one-based'),
  /** The server's "3 years": the documents give no exact length. */
  maxRangeDays: z.coerce.number().int().positive().default(1095),
  ticketingToken: z.string().min(1).optional(),
  engagementApiKey: z.string().min(1).optional(),
  orgId: z.string().regex(/^\d+$/).optional(),
  disabledModules: z.array(z.enum(ENGAGEMENT_MODULES)).default([]),
  /**
   * Answers from bytes rendered once (ticketing records at start-up, engagement replies on
   * first request), so a benchmark measures its client rather than the simulator's CPU.
   * The data cannot change, so faults, mutations and the admin surface are refused.
   */
  replay: z.boolean().default(false),
  /** How the platform retries pushes to a subscription that fails (docs/decisions.md "Push subscriptions"). */
  push: z.object({
    /** Wait before the first retry of a delivery; doubles with each further attempt. */
    retryMs: z.coerce.number().int().min(0).default(1000),
    /** Attempts per delivery before it is dropped. */
    maxAttempts: z.coerce.number().int().positive().default(8),
    /** A subscription whose deliveries fail this long without a success is disabled. */
    disableAfterMs: z.coerce.number().int().positive().default(72 * 3_600_000),
    /** How long the platform waits for a callback's answer. */
    timeoutMs: z.coerce.number().int().positive().default(10_000),
  }).default({ retryMs: 1000, maxAttempts: 8, disableAfterMs: 72 * 3_600_000, timeoutMs: 10_000 }),
}).refine((options) => !options.replay || (options.faults === 0 && options.mutate === 0 && !options.admin), {
  message: 'replay serves fixed bytes: it cannot be combined with faults, mutate or admin',
  path: ['replay'],
});

export type SimulatorOptionsInput = z.input<typeof SimulatorOptionsSchema>;
export type SimulatorOptions = z.output<typeof SimulatorOptionsSchema> & {
  ticketingToken: string;
  engagementApiKey: string;
  orgId: string;
};

/** Validates options and fills in credentials the caller did not bring. */
export function resolveSimulatorOptions(input: SimulatorOptionsInput): SimulatorOptions {
  const parsed = SimulatorOptionsSchema.parse(input);
  return {
    ...parsed,
    ticketingToken: parsed.ticketingToken ?? `sim-${randomBytes(12).toString('hex')}`,
    engagementApiKey: parsed.engagementApiKey ?? `sim-${randomBytes(12).toString('hex')}`,
    orgId: parsed.orgId ?? '4711',
  };
}
