/** A monotonic clock in milliseconds; tests pass one they move by hand. */
export type MonotonicClock = () => number;

/**
 * A token bucket: `perSecond` tokens a second, refilled continuously, holding at most one
 * second's worth (the burst). Full at the start.
 *
 * @example
 * const bucket = new TokenBucket(50);
 * if (!bucket.take()) answer429();
 */
export class TokenBucket {
  private tokens: number;
  private refilledAt: number;

  constructor(
    private readonly perSecond: number,
    private readonly now: MonotonicClock = () => performance.now(),
  ) {
    this.tokens = perSecond;
    this.refilledAt = now();
  }

  /** Takes one token; false when none is left. */
  take(): boolean {
    const now = this.now();
    this.tokens = Math.min(this.perSecond, this.tokens + (Math.max(0, now - this.refilledAt) / 1000) * this.perSecond);
    this.refilledAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
