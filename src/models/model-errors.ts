import { FanlakeError } from '../core/errors.js';
import type { ErrorContext } from '../core/errors.js';
import { CODE } from '../core/error-codes.js';

/** Stable codes of the models stage; declared once, branch on these, never on message text. */
export const MODEL_ERROR_CODES = {
  /** The SQL project itself is broken (header, parse, missing reference, cycle): nothing was built. */
  project: CODE.E_MODEL_PROJECT,
  /** One model's SQL failed in DuckDB; its descendants were skipped. */
  modelFailed: CODE.E_MODEL_FAILED,
  /** A model reads a `raw.*` table the warehouse does not have. */
  sourceMissing: CODE.E_MODEL_SOURCE_MISSING,
  /** An incremental model's output no longer fits its table, or its keys are null or repeated. */
  incrementalMismatch: CODE.E_MODEL_INCREMENTAL,
  /** The macros could not be created in the warehouse: nothing was built. */
  macroFailed: CODE.E_MODEL_MACRO,
  /** A seed CSV could not be loaded. */
  seedFailed: CODE.E_SEED_FAILED,
  /** `check` needs a warehouse and there is none. */
  warehouseMissing: CODE.E_WAREHOUSE_MISSING,
  /** A data test could not run at all (missing table or column, bad SQL). */
  testBroken: CODE.E_TEST_BROKEN,
} as const;

export type ModelErrorCode = (typeof MODEL_ERROR_CODES)[keyof typeof MODEL_ERROR_CODES];

/**
 * Every problem found in the SQL project, reported at once before anything runs, so one
 * `build` shows all the typos instead of one per attempt.
 */
export class ModelProjectError extends FanlakeError {
  override readonly name = 'ModelProjectError';
  constructor(
    readonly problems: readonly string[],
    context: ErrorContext = {},
  ) {
    const header = problems.length === 1 ? '1 problem in the SQL models' : `${problems.length} problems in the SQL models`;
    super(MODEL_ERROR_CODES.project, `${header}:\n${problems.map((p) => `  - ${p}`).join('\n')}`, { context: { ...context, problems } });
  }
}

/** Wraps an engine error for one model; the DuckDB message is kept, it names columns and positions. */
export function modelFailure(code: ModelErrorCode, relation: string, cause: unknown): FanlakeError {
  if (cause instanceof FanlakeError) return cause;
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new FanlakeError(code, `${relation}: ${detail}`, { context: { model: relation }, cause });
}
