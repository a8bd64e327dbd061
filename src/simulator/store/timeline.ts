/**
 * The records of one cursor-paged resource, kept as two typed arrays: `lastUpdate`
 * (record index → milliseconds) and `order` (record indices sorted by last update, then
 * index). A date window is a binary search, a page a slice, and a change of one record
 * a memmove, so a record costs 13 bytes of typed arrays, not its JSON.
 */
export class Timeline {
  private lastUpdate: Float64Array;
  private order: Uint32Array;
  private removed: Uint8Array;
  private live = 0;
  /** Record indices handed out so far (removed ones included). */
  size: number;

  constructor(initial: Float64Array) {
    this.size = initial.length;
    const capacity = Math.max(16, Math.ceil(initial.length * 1.1));
    this.lastUpdate = new Float64Array(capacity);
    this.lastUpdate.set(initial);
    this.removed = new Uint8Array(capacity);
    this.order = new Uint32Array(capacity);
    this.order.set(sortedOrder(initial));
    this.live = initial.length;
  }

  get count(): number {
    return this.live;
  }

  lastUpdateOf(index: number): number {
    return this.lastUpdate[index]!;
  }

  isLive(index: number): boolean {
    return index < this.size && this.removed[index] === 0;
  }

  /** Positions [start, end) of the records with from <= lastUpdate <= to. */
  window(fromMs: number, toMs: number): { start: number; end: number } {
    return { start: this.lowerBound(fromMs, -1), end: this.lowerBound(toMs, Number.MAX_SAFE_INTEGER) };
  }

  /** Record index at a position of the sorted order. */
  at(position: number): number {
    return this.order[position]!;
  }

  /** Gives a record a new last update (it moves in the order). */
  touch(index: number, atMs: number): void {
    this.detach(index);
    this.lastUpdate[index] = atMs;
    this.attach(index);
  }

  /** Adds a record and returns its index. */
  append(atMs: number): number {
    if (this.size === this.lastUpdate.length) this.grow();
    const index = this.size++;
    this.lastUpdate[index] = atMs;
    this.attach(index);
    return index;
  }

  remove(index: number): void {
    if (!this.isLive(index)) return;
    this.detach(index);
    this.removed[index] = 1;
  }

  /** Live record indices in ascending order of last update. */
  *indices(): Generator<number> {
    for (let position = 0; position < this.live; position++) yield this.order[position]!;
  }

  /** First position whose (lastUpdate, index) sorts after (ms, index). */
  private lowerBound(ms: number, index: number): number {
    let lo = 0;
    let hi = this.live;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const other = this.order[mid]!;
      const t = this.lastUpdate[other]!;
      if (t < ms || (t === ms && other <= index)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private detach(index: number): void {
    const position = this.lowerBound(this.lastUpdate[index]!, index - 1);
    if (this.order[position] !== index) throw new Error(`timeline corrupt: record ${index} not at its position`);
    this.order.copyWithin(position, position + 1, this.live);
    this.live--;
  }

  private attach(index: number): void {
    const position = this.lowerBound(this.lastUpdate[index]!, index);
    this.order.copyWithin(position + 1, position, this.live);
    this.order[position] = index;
    this.live++;
  }

  private grow(): void {
    const capacity = this.lastUpdate.length * 2;
    const lastUpdate = new Float64Array(capacity);
    lastUpdate.set(this.lastUpdate);
    const order = new Uint32Array(capacity);
    order.set(this.order);
    const removed = new Uint8Array(capacity);
    removed.set(this.removed);
    this.lastUpdate = lastUpdate;
    this.order = order;
    this.removed = removed;
  }
}

/**
 * Sorts indices by (ms, index) with a native numeric sort: the key packs the whole seconds
 * since the earliest record and the index into one double (28 + 25 bits: nine years and
 * 33M records, scale 80's tickets with room), then one insertion pass orders milliseconds
 * within a second, where only a handful of records ever collide.
 */
function sortedOrder(lastUpdate: Float64Array): Uint32Array {
  const n = lastUpdate.length;
  if (n > INDEX_SPAN) throw new Error(`timeline holds at most ${INDEX_SPAN.toLocaleString('en-US')} records per resource`);
  let firstSecond = Number.POSITIVE_INFINITY;
  let lastSecond = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    const second = Math.floor(lastUpdate[i]! / 1000);
    firstSecond = Math.min(firstSecond, second);
    lastSecond = Math.max(lastSecond, second);
  }
  if ((lastSecond - firstSecond + 1) * INDEX_SPAN > Number.MAX_SAFE_INTEGER) throw new Error('timeline spans more seconds than its sort key holds');
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) keys[i] = (Math.floor(lastUpdate[i]! / 1000) - firstSecond) * INDEX_SPAN + i;
  keys.sort();
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = keys[i]! % INDEX_SPAN;
  for (let i = 1; i < n; i++) {
    const current = order[i]!;
    const t = lastUpdate[current]!;
    let j = i - 1;
    while (j >= 0 && (lastUpdate[order[j]!]! > t || (lastUpdate[order[j]!]! === t && order[j]! > current))) {
      order[j + 1] = order[j]!;
      j--;
    }
    order[j + 1] = current;
  }
  return order;
}

/** Records per resource the sort key can tell apart (2^25). */
const INDEX_SPAN = 2 ** 25;
