import { describe, expect, it } from 'vitest';
import { WorkQueue } from '../../../src/extract/engine/work-queue.js';

describe('WorkQueue', () => {
  it('hands items over in order and ends once closed and drained', async () => {
    const queue = new WorkQueue<number>();
    const taken = (async () => {
      const items: number[] = [];
      for (let item = await queue.next(); item !== undefined; item = await queue.next()) items.push(item);
      return items;
    })();
    for (let k = 0; k < 3000; k++) queue.push(k);
    queue.close();
    expect(await taken).toEqual(Array.from({ length: 3000 }, (_, k) => k));
  });

  it('keeps a producer waiting while the queue is full, and lets it go as consumers take items', async () => {
    const queue = new WorkQueue<number>();
    for (let k = 0; k < 5; k++) queue.push(k);
    let released = false;
    const waiting = queue.room(3).then(() => (released = true));
    await queue.next();
    await queue.next();
    await Promise.resolve();
    expect(released).toBe(false);
    await queue.next();
    await waiting;
    expect(released).toBe(true);
  });

  it('lets a waiting producer go when the consumers stop for good', async () => {
    const queue = new WorkQueue<number>();
    for (let k = 0; k < 5; k++) queue.push(k);
    const waiting = queue.room(2);
    queue.abandon();
    await expect(waiting).resolves.toBeUndefined();
    await expect(queue.room(2)).resolves.toBeUndefined();
  });
});
