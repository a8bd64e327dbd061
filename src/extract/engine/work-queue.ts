/**
 * Work handed from one stage to another while the first still runs: customer profile
 * pages feed the consents fan-out as they arrive, so the two overlap instead of the
 * fan-out waiting for the whole profile list.
 */
export class WorkQueue<T> {
  private items: (T | undefined)[] = [];
  private head = 0;
  private waiters: (() => void)[] = [];
  private closed = false;
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

  /** The next item, `undefined` once the queue is closed and drained. */
  async next(): Promise<T | undefined> {
    for (;;) {
      if (this.failure) throw this.failure.error;
      if (this.head < this.items.length) {
        const item = this.items[this.head];
        this.items[this.head++] = undefined;
        return item;
      }
      if (this.closed) return undefined;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
