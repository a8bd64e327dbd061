import type { CursorResource } from '../store/cursor-resource.js';
import { KEPT_BUFFER_OVERHEAD, type ReplayBudget } from './replay-budget.js';

/**
 * The live records of a cursor-paged resource serialized once, as the API sends it, so a
 * replayed page costs a copy of bytes instead of generating and serializing records. Records
 * are kept in the order an extraction reads them while the budget lasts; the rest are
 * rendered per page. Only valid while nothing changes the records (replay refuses `--mutate`
 * and admin).
 */
export class RenderedRecords {
  private readonly bytes = new Map<number, Buffer>();

  constructor(
    private readonly resource: CursorResource,
    budget: ReplayBudget,
  ) {
    for (const index of resource.timeline.indices()) {
      const bytes = this.render(index);
      if (!budget.take(bytes.length + KEPT_BUFFER_OVERHEAD)) break;
      this.bytes.set(index, bytes);
    }
  }

  /**
   * The body `JSON.stringify({ count, page, items })` would give for the records at
   * these indices (count as a string, page echoed as sent: the API's quirks).
   */
  page(count: number, page: string, indices: readonly number[]): Buffer {
    const parts: Buffer[] = [Buffer.from(`{"count":"${count}","page":${JSON.stringify(page)},"items":[`)];
    indices.forEach((index, k) => {
      if (k > 0) parts.push(COMMA);
      parts.push(this.bytes.get(index) ?? this.render(index));
    });
    parts.push(END);
    return Buffer.concat(parts);
  }

  private render(index: number): Buffer {
    return Buffer.from(JSON.stringify(this.resource.record(index)));
  }
}

const COMMA = Buffer.from(',');
const END = Buffer.from(']}');
