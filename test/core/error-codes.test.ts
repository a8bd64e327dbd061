import { describe, expect, it } from 'vitest';
import { registerSecret } from '../../src/core/secrets.js';
import { CODE, ERROR_CODES, errorCodesMarkdown } from '../../src/core/error-codes.js';
import { toErrorRecord } from '../../src/core/error-record.js';
import { FanlakeError, UsageError } from '../../src/core/errors.js';
import { docPart } from '../helpers/doc-part.js';

describe('error codes', () => {
  it('docs/errors.md lists exactly the registry', async () => {
    expect(await docPart('docs/errors.md', 'error-codes'), 'docs/errors.md is out of date: run make docs').toBe(errorCodesMarkdown());
  });

  it('an error takes its retryable flag from the registry', () => {
    expect(new FanlakeError(CODE.E_DUCKDB_BUSY, 'busy').retryable).toBe(true);
    expect(new FanlakeError(CODE.E_LOAD_KEY, 'no key').retryable).toBe(false);
    expect(new UsageError('bad flag').code).toBe('E_USAGE');
    for (const [code, spec] of Object.entries(ERROR_CODES)) expect(new FanlakeError(code as keyof typeof ERROR_CODES, 'x').retryable).toBe(spec.retryable);
  });

  it('a record keeps code, flag and JSON context, fills in where it happened, and masks secrets', () => {
    registerSecret('s3cr3t-token');
    const cause = new Error('socket');
    const error = new FanlakeError(CODE.E_HTTP_GAVE_UP, 'gave up', { context: { resource: 'tickets', page: 3, url: '/api/x?token=s3cr3t-token', cause }, cause });
    expect(toErrorRecord(error, { source: 'ticketing', resource: 'ignored' })).toEqual({
      code: 'E_HTTP_GAVE_UP',
      message: 'gave up',
      retryable: true,
      context: { source: 'ticketing', resource: 'tickets', page: 3, url: '/api/x?token=***' },
    });
    expect(toErrorRecord(new TypeError('boom'), { table: 'raw.t' })).toEqual({ code: 'E_UNEXPECTED', message: 'boom', retryable: false, context: { table: 'raw.t' } });
  });
});
