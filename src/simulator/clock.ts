/**
 * The simulator's clock. Data is generated relative to `startMs`, so pinning it
 * (`--now`) makes a seed's data byte-identical; time still moves on from there, so
 * records changed during a run get later timestamps, as they would in production.
 */
export class SimClock {
  readonly startMs: number;
  private readonly startedAt = performance.now();

  constructor(pinnedMs?: number) {
    this.startMs = pinnedMs ?? Date.now();
  }

  now(): number {
    return Math.floor(this.startMs + (performance.now() - this.startedAt));
  }
}
