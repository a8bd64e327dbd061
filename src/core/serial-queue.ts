/**
 * Runs tasks one after another in the order they were queued: each starts once the one before
 * it has settled, whether it succeeded or failed, and a task's failure reaches only the caller
 * that queued it. For work that shares one resource (a file written in place, a connection, a
 * memory budget) but is started from concurrent code.
 *
 * @example
 * const writes = new SerialQueue();
 * await Promise.all([writes.run(() => save(a)), writes.run(() => save(b))]); // a, then b
 */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const next = this.#tail.then(task, task);
    this.#tail = next.catch(() => undefined);
    return next;
  }

  /** Resolves once every task queued so far has settled; never rejects. */
  async idle(): Promise<void> {
    await this.#tail;
  }
}
