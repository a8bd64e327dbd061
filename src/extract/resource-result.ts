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
  /** Warnings and errors, in words a user can act on. */
  readonly messages: readonly string[];
}

export function skippedResult(source: string, resource: string, why: string): ResourceResult {
  return { source, resource, status: 'skipped', rows: 0, files: 0, quarantined: 0, requests: 0, retries: 0, seconds: 0, messages: [why] };
}
