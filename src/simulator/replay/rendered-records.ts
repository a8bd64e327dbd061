import type { CursorResource } from '../store/cursor-resource.js';

/**
 * Every live record of a cursor-paged resource serialized once, as the API sends it, so
 * a replayed page costs a copy of bytes instead of generating and serializing records.
 * Only valid while nothing changes the records (replay refuses `--mutate` and admin).
 */
export class RenderedRecords {
  private readonly bytes: Buffer[] = [];

  constructor(resource: CursorResource) {
    for (const index of resource.timeline.indices()) this.bytes[index] = Buffer.from(JSON.stringify(resource.record(index)));
  }

  /**
   * The body `JSON.stringify({ count, page, items })` would give for the records at
   * these indices (count as a string, page echoed as sent: the API's quirks).
   */
  page(count: number, page: string, indices: readonly number[]): Buffer {
    const parts: Buffer[] = [Buffer.from(`{"count":"${count}","page":${JSON.stringify(page)},"items":[`)];
    indices.forEach((index, k) => {
      if (k > 0) parts.push(COMMA);
      parts.push(this.bytes[index]!);
    });
    parts.push(END);
    return Buffer.concat(parts);
  }
}

const COMMA = Buffer.from(',');
const END = Buffer.from(']}');
