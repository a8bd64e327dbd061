import { describe, expect, it } from 'vitest';
import { SerialQueue } from '../../src/core/serial-queue.js';

/** A task that records when it starts and ends, settling only when released. */
function task(log: string[], name: string) {
  let settle!: (fail: boolean) => void;
  const settled = new Promise<boolean>((resolve) => (settle = resolve));
  const release = (fail = false) => settle(fail);
  const run = async () => {
    log.push(`${name} starts`);
    const fail = await settled;
    log.push(`${name} ends`);
    if (fail) throw new Error(`${name} failed`);
    return name;
  };
  return { run, release };
}

describe('SerialQueue', () => {
  it('starts each task only after the one before it has settled, in the order queued', async () => {
    const log: string[] = [];
    const queue = new SerialQueue();
    const a = task(log, 'a');
    const b = task(log, 'b');
    const first = queue.run(a.run);
    const second = queue.run(b.run);
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['a starts']);
    b.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['a starts']);
    a.release();
    expect(await first).toBe('a');
    expect(await second).toBe('b');
    expect(log).toEqual(['a starts', 'a ends', 'b starts', 'b ends']);
  });

  it("gives a task's failure to its caller only, and runs the next task all the same", async () => {
    const log: string[] = [];
    const queue = new SerialQueue();
    const a = task(log, 'a');
    const b = task(log, 'b');
    const failed = queue.run(a.run);
    const next = queue.run(b.run);
    a.release(true);
    b.release();
    await expect(failed).rejects.toThrow('a failed');
    expect(await next).toBe('b');
  });

  it('is idle once every task queued so far has settled, failed ones included', async () => {
    const log: string[] = [];
    const queue = new SerialQueue();
    const a = task(log, 'a');
    queue.run(a.run).catch(() => undefined);
    let idle = false;
    const waiting = queue.idle().then(() => (idle = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(idle).toBe(false);
    a.release(true);
    await waiting;
    expect(log).toEqual(['a starts', 'a ends']);
  });
});
