import { describe, expect, it } from 'vitest';
import { backoffDelay, parseRetryAfter, sleep } from '../../src/core/backoff.js';

const options = { baseDelayMs: 100, maxDelayMs: 1000 };

describe('backoffDelay', () => {
  it('draws from [0, base * 2^(attempt-1)) with full jitter', () => {
    expect(backoffDelay(1, options, () => 0)).toBe(0);
    expect(backoffDelay(1, options, () => 0.999)).toBe(99);
    expect(backoffDelay(3, options, () => 0.5)).toBe(200);
  });

  it('never exceeds the cap', () => {
    expect(backoffDelay(30, options, () => 0.999)).toBeLessThan(1000);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2024-05-01T12:00:00Z');

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('2', 10_000, now)).toBe(2000);
    expect(parseRetryAfter(' 0 ', 10_000, now)).toBe(0);
  });

  it('reads an HTTP date relative to now, never negative', () => {
    expect(parseRetryAfter('Wed, 01 May 2024 12:00:03 GMT', 10_000, now)).toBe(3000);
    expect(parseRetryAfter('Wed, 01 May 2024 11:00:00 GMT', 10_000, now)).toBe(0);
  });

  it('caps the wait', () => {
    expect(parseRetryAfter('3600', 10_000, now)).toBe(10_000);
  });

  it('ignores missing or unreadable values', () => {
    expect(parseRetryAfter(undefined, 10_000, now)).toBeUndefined();
    expect(parseRetryAfter('', 10_000, now)).toBeUndefined();
    expect(parseRetryAfter('1.5', 10_000, now)).toBeUndefined();
    expect(parseRetryAfter('soon', 10_000, now)).toBeUndefined();
  });
});

describe('sleep', () => {
  it('rejects with the reason when aborted', async () => {
    const controller = new AbortController();
    const waiting = sleep(10_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
  });
});
