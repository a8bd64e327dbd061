import type { ErrorRecord } from '../core/error-record.js';

/** What extracting one resource came to; the CLI prints these and picks the exit code. */
export interface ResourceResult {
  readonly source: string;
  readonly resource: string;
  /** ok: complete; partial: some part failed after retries (exit 1); failed: nothing usable; skipped: not asked or not possible. */
  readonly status: 'ok' | 'partial' | 'failed' | 'skipped';
  readonly rows: number;
  readonly files: number;
  readonly quarantined: number;
  readonly requests: number;
  readonly retries: number;
  readonly seconds: number;
  /** What failed, each with its code, retryable flag and where (window, page, child). */
  readonly errors: readonly ErrorRecord[];
  /** Informational lines that are not errors: why it was skipped, quarantined records, windows to re-read. */
  readonly notes: readonly string[];
}

/** Error records kept per resource; a fan-out over thousands of children reports the rest as a count. */
export const MAX_ERRORS_PER_RESOURCE = 10;

export function skippedResult(source: string, resource: string, why: string): ResourceResult {
  return { source, resource, status: 'skipped', rows: 0, files: 0, quarantined: 0, requests: 0, retries: 0, seconds: 0, errors: [], notes: [why] };
}
