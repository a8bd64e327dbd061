import { readFile } from 'node:fs/promises';
import * as z from 'zod';
import type { ErrorCode } from '../core/error-codes.js';
import { FanlakeError } from '../core/errors.js';

/**
 * Reads a JSON file another stage wrote and validates it against its schema.
 *
 * @param what How the message names the file, e.g. `manifest`.
 * @throws FanlakeError with `code`, naming the file in the message and `context.path`, when
 * it is not JSON or does not match; the error of `readFile` when it cannot be read at all.
 */
export async function readJsonFile<S extends z.ZodType>(path: string, schema: S, code: ErrorCode, what: string): Promise<z.output<S>> {
  const text = await readFile(path, 'utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new FanlakeError(code, `${what} ${path} is not JSON`, { context: { path }, cause });
  }
  return parseJson(value, schema, code, `${what} ${path}`, path);
}

/** Validates a value against a file's schema, or throws `code` saying what is wrong where. */
export function parseJson<S extends z.ZodType>(value: unknown, schema: S, code: ErrorCode, subject: string, path: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new FanlakeError(code, `${subject} is invalid: ${z.prettifyError(result.error)}`, { context: { path }, cause: result.error });
  }
  return result.data;
}
