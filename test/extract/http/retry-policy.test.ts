import { describe, expect, it } from 'vitest';
import { isTransientNetworkError, judgeStatus } from '../../../src/extract/http/retry-policy.js';

describe('judgeStatus', () => {
  it.each([
    [200, 'success'],
    [204, 'success'],
    [429, 'retry'],
    [500, 'retry'],
    [502, 'retry'],
    [503, 'retry'],
    [504, 'retry'],
    [401, 'auth'],
    [400, 'fail'],
    [403, 'fail'],
    [404, 'fail'],
    [422, 'fail'],
    [501, 'fail'],
    [302, 'fail'],
  ] as const)('%i -> %s', (status, verdict) => {
    expect(judgeStatus(status)).toBe(verdict);
  });

  it('lets the caller accept a documented status', () => {
    expect(judgeStatus(404, [404])).toBe('success');
  });
});

describe('isTransientNetworkError', () => {
  it('finds socket codes on the error, its cause or aggregated errors', () => {
    expect(isTransientNetworkError(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toBe(true);
    expect(isTransientNetworkError(new Error('x', { cause: { code: 'UND_ERR_SOCKET' } }))).toBe(true);
    expect(isTransientNetworkError(new AggregateError([{ code: 'ECONNREFUSED' }]))).toBe(true);
  });

  it('rejects everything else', () => {
    expect(isTransientNetworkError(new TypeError('bad header'))).toBe(false);
    expect(isTransientNetworkError({ code: 'UND_ERR_INVALID_ARG' })).toBe(false);
    expect(isTransientNetworkError('ECONNRESET')).toBe(false);
  });
});
