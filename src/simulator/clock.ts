/**
 * The simulator's clock. Data is generated relative to `startMs`, so pinning it
 * (`--now`) makes a seed's data byte-identical; time still moves on from there, so
 * records changed during a run get later timestamps, as they would in production.
 * `advance` jumps it forward: a test lets simulated hours pass without waiting for them.
 */
export class SimClock {
  readonly startMs: number;
  private readonly startedAt = performance.now();
  private advancedMs = 0;

  constructor(pinnedMs?: number) {
    this.startMs = pinnedMs ?? Date.now();
  }

  now(): number {
    return Math.floor(this.startMs + this.advancedMs + (performance.now() - this.startedAt));
  }

  /** Moves the clock forward to `ms` (never back: timestamps already served stay in the past); returns the new now. */
  advanceTo(ms: number): number {
    this.advancedMs += Math.max(0, ms - this.now());
    return this.now();
  }
}
