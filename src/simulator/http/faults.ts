import { Rng } from '../random.js';

export type Fault = 'status-500' | 'status-502' | 'status-503' | 'status-429' | 'reset-mid-body' | 'stall';

const FAULTS: readonly (readonly [Fault, number])[] = [
  ['status-500', 3],
  ['status-502', 2],
  ['status-503', 2],
  ['status-429', 3],
  ['reset-mid-body', 2],
  ['stall', 1],
];

/**
 * Decides which API requests fail and how. Each request draws from its own seeded stream
 * (by arrival number), so a run is reproducible for a seed and a retry of the same URL
 * can succeed. Tests can also force faults on paths matching a pattern.
 */
export class FaultPlan {
  private arrivals = 0;
  private forced: { pattern: RegExp; fault: Fault | 'status-404'; remaining: number }[] = [];

  constructor(
    private readonly seed: number,
    public rate: number,
  ) {}

  /** Makes the next `times` requests whose path+query matches fail with `fault`. */
  force(pattern: RegExp, fault: Fault | 'status-404', times = Number.POSITIVE_INFINITY): void {
    this.forced.push({ pattern, fault, remaining: times });
  }

  clearForced(): void {
    this.forced = [];
  }

  draw(pathAndQuery: string): Fault | 'status-404' | undefined {
    const arrival = this.arrivals++;
    for (const rule of this.forced) {
      if (rule.remaining > 0 && rule.pattern.test(pathAndQuery)) {
        rule.remaining--;
        return rule.fault;
      }
    }
    if (this.rate <= 0) return undefined;
    const rng = Rng.for(this.seed, 'fault', arrival);
    return rng.next() < this.rate ? rng.weighted(FAULTS) : undefined;
  }
}
