/**
 * The bytes a replay server may keep rendered, shared by its ticketing records and its
 * engagement replies: within it a replayed page is a copy of bytes; beyond it (large scales)
 * records are rendered again for each request, as without replay, so memory stays bounded.
 */
export class ReplayBudget {
  private left: number;

  constructor(bytes: number) {
    this.left = bytes;
  }

  /** Takes `bytes` from the budget if they fit; false once it is spent. */
  take(bytes: number): boolean {
    if (bytes > this.left) return false;
    this.left -= bytes;
    return true;
  }
}

/** What a kept Buffer costs beside its bytes (its object and slab share), counted against the budget. */
export const KEPT_BUFFER_OVERHEAD = 96;
