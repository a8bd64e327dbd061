export const SECOND_MS = 1000;
export const HOUR_MS = 3_600_000;
export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;
export const SIX_YEARS_MS = 6 * 365 * DAY_MS;

/** UTC ISO 8601 with milliseconds and Z, the documented timestamp form. */
export function iso(ms: number): string {
  return new Date(Math.floor(ms)).toISOString();
}

export function isoDate(ms: number): string {
  return iso(ms).slice(0, 10);
}
