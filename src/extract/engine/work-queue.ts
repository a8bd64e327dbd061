/**
 * Work handed from one stage to another while the first still runs: customer profile
 * pages feed the consents fan-out as they arrive, so the two overlap instead of the
 * fan-out waiting for the whole profile list.
 */
export class WorkQueue<T> {
  private items: (T | undefined)[] = [];
  private head = 0;
  private waiters: (() => void)[] = [];
  /** Producers waiting for the queue to shorten below their limit (see `room`). */
  private producers: { limit: number; wake: () => void }[] = [];
  private closed = false;
  /** The consumers stopped early: nothing will take items any more. */
  private abandoned = false;
  private failure: { error: unknown } | undefined;

  static of<T>(items: Iterable<T>): WorkQueue<T> {
    const queue = new WorkQueue<T>();
    for (const item of items) queue.push(item);
    queue.close();
    return queue;
  }

  push(item: T): void {
    this.items.push(item);
    this.wake();
  }

  /** No more items will come. */
  close(): void {
    this.closed = true;
    this.wake();
  }

  /** The producer failed: consumers get its error instead of more items. */
  fail(error: unknown): void {
    this.failure = { error };
    this.close();
  }

  /**
   * Resolves once fewer than `limit` items wait (or nobody will take them): a producer far
   * ahead of its consumers waits here instead of piling items up in memory. Customer
   * profile pages come much faster than one consents request per profile, so without it
   * the whole fan-out (a child per profile) sat in the heap.
   */
  async room(limit: number): Promise<void> {
    while (this.items.length - this.head >= limit && !this.abandoned && !this.failure) {
      await new Promise<void>((wake) => this.producers.push({ limit, wake }));
    }
  }

  /** The consumers stopped for good (an error, a missing module): producers wait no more. */
  abandon(): void {
    this.abandoned = true;
    this.wakeProducers(Number.NEGATIVE_INFINITY); // below every limit: all of them
  }

  /** The next item, `undefined` once the queue is closed and drained. */
  async next(): Promise<T | undefined> {
    for (;;) {
      if (this.failure) throw this.failure.error;
      if (this.head < this.items.length) {
        const item = this.items[this.head];
        this.items[this.head++] = undefined;
        // Taken items leave the array now and then, so a long run does not keep its slots.
        if (this.head >= 1024 && this.head * 2 >= this.items.length) {
          this.items = this.items.slice(this.head);
          this.head = 0;
        }
        this.wakeProducers(this.items.length - this.head);
        return item;
      }
      if (this.closed) return undefined;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /**
   * Wakes the producers whose limit `waiting` items are below. Runs on every item taken, so
   * it allocates nothing while the queue stays full: producers woken while it was still
   * full went straight back to sleep with a new promise each, several for every child: in an
   * engagement run with a child per profile, hundreds of MB of allocations.
   */
  private wakeProducers(waiting: number): void {
    const producers = this.producers;
    let due = false;
    for (const producer of producers) due ||= waiting < producer.limit;
    if (!due) return;
    this.producers = [];
    for (const producer of producers) {
      if (waiting < producer.limit) producer.wake();
      else this.producers.push(producer);
    }
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
