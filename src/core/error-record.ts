import * as z from 'zod';
import { redact } from './secrets.js';
import { CODE, ERROR_CODE_NAMES } from './error-codes.js';
import { type ErrorContext, errorMessage, FanlakeError } from './errors.js';

/**
 * An error as results, run summaries and `meta.extraction_runs` keep it: the same shape from
 * the stage that raised it to the CLI's JSON. Context holds only JSON values (no causes).
 */
export const errorRecordSchema = z.object({
  code: z.enum(ERROR_CODE_NAMES),
  /** In words a user can act on, secrets masked. */
  message: z.string(),
  retryable: z.boolean(),
  /** Where it happened: source, resource, window, page, childId, table, model, test, url, status... */
  context: z.record(z.string(), z.json()),
});
export type ErrorRecord = z.infer<typeof errorRecordSchema>;

/**
 * The record of any thrown value. `where` fills in context the error does not carry itself
 * (a stage knows the resource; the HTTP layer knows the URL); the error's own context wins.
 * Anything that is not a FanlakeError becomes `E_UNEXPECTED` with its message.
 */
export function toErrorRecord(error: unknown, where: ErrorContext = {}): ErrorRecord {
  const known = error instanceof FanlakeError ? error : undefined;
  const context: Record<string, z.core.util.JSONType> = {};
  for (const [key, value] of Object.entries({ ...where, ...known?.context })) {
    const safe = jsonValue(value);
    if (safe !== undefined) context[key] = safe;
  }
  return {
    code: known?.code ?? CODE.E_UNEXPECTED,
    message: redact(errorMessage(error)),
    retryable: known?.retryable ?? false,
    context,
  };
}

/**
 * `<source>.<resource>: <message>` (or the table, model or test it concerns), naming the
 * child request of a fan-out when the message does not: one line for humans.
 */
export function describeErrorRecord(record: ErrorRecord): string {
  const { source, resource, table, model, test, childId } = record.context;
  const child = typeof childId === 'string' && !record.message.includes(childId) ? ` (${childId})` : '';
  const subject = resource !== undefined ? [source, resource].filter((part) => part !== undefined).join('.') : (table ?? model ?? test);
  const prefix = subject === undefined || record.message.startsWith(`${String(subject)}:`) ? '' : `${String(subject)}: `;
  return `${prefix}${record.message}${child}`;
}

/** Strings are redacted; objects and arrays keep their JSON parts; functions, causes and the like are dropped. */
function jsonValue(value: unknown): z.core.util.JSONType | undefined {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return Number.isFinite(value) || typeof value !== 'number' ? value : String(value);
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((item) => jsonValue(item) ?? null);
  if (typeof value === 'object' && !(value instanceof Error)) {
    const entries = Object.entries(value as Record<string, unknown>).flatMap(([key, item]) => {
      const safe = jsonValue(item);
      return safe === undefined ? [] : [[key, safe] as const];
    });
    return Object.fromEntries(entries);
  }
  return undefined;
}
