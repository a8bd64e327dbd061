import { CODE, ERROR_CODES, type ErrorCode } from './error-codes.js';

/**
 * One error base for the whole tool. Every error has a stable `code` (never branch on
 * message text), says whether retrying could help, and carries where it happened.
 * Messages must never contain a secret: build them from names, ids and statuses only.
 */
export interface ErrorContext {
  source?: string;
  resource?: string;
  endpoint?: string;
  window?: string;
  page?: number;
  /** One child request of a fan-out, e.g. `profile 123`. */
  childId?: string;
  model?: string;
  table?: string;
  test?: string;
  key?: string;
  [extra: string]: unknown;
}

export class FanlakeError extends Error {
  override readonly name: string = 'FanlakeError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly options: { context?: ErrorContext; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
  }

  /** Whether retrying later could help: declared with the code, never decided at the throw site. */
  get retryable(): boolean {
    return ERROR_CODES[this.code].retryable;
  }

  get context(): ErrorContext {
    return this.options.context ?? {};
  }
}

/** Bad usage or configuration: the CLI exits 2. */
export class UsageError extends FanlakeError {
  override readonly name = 'UsageError';
  constructor(message: string, context?: ErrorContext) {
    super(CODE.E_USAGE, message, { context });
  }
}

/** Exit status of the CLI for an error that reached it. */
export function exitCodeFor(error: unknown): 1 | 2 {
  return error instanceof UsageError ? 2 : 1;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
