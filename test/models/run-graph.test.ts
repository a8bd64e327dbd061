import { describe, expect, it } from 'vitest';
import { runGraph } from '../../src/models/run-graph.js';

const PARENTS: Record<string, string[]> = { a1: [], a2: ['a1'], b1: [], b2: ['b1'], c: ['a2', 'b2'] };
const ORDER = ['a1', 'b1', 'a2', 'b2', 'c'];

describe('runGraph', () => {
  it('runs the nodes one at a time in order, each after its parents', async () => {
    let inFlight = 0;
    const started: string[] = [];
    const outcomes = await runGraph({
      order: ORDER,
      parentsOf: (node) => PARENTS[node]!,
      run: async (node) => {
        expect(inFlight).toBe(0);
        inFlight++;
        started.push(node);
        // A turn of the event loop: a node started beside this one would run now and see inFlight 1.
        await new Promise((resolve) => setImmediate(resolve));
        inFlight--;
        return { failed: false, value: node };
      },
    });
    expect(started).toEqual(ORDER);
    expect([...outcomes.values()].every((outcome) => outcome.status === 'ok')).toBe(true);
  });

  it('skips the descendants of a failed node and keeps building the other branch', async () => {
    const ran: string[] = [];
    const outcomes = await runGraph({
      order: ORDER,
      parentsOf: (node) => PARENTS[node]!,
      run: async (node) => {
        ran.push(node);
        if (node === 'a1') throw new Error('boom');
        return { failed: false, value: node };
      },
    });
    expect(ran).toEqual(['a1', 'b1', 'b2']);
    expect(outcomes.get('a1')).toMatchObject({ status: 'failed' });
    expect(outcomes.get('a2')).toEqual({ status: 'skipped', failedAncestor: 'a1', via: 'a1' });
    expect(outcomes.get('c')).toEqual({ status: 'skipped', failedAncestor: 'a1', via: 'a2' });
    expect(outcomes.get('b2')).toMatchObject({ status: 'ok' });
  });

  it('with concurrency 2, runs independent nodes at once in two slots, each after its parents', async () => {
    const done = new Set<string>();
    const inSlot = new Map<number, string>();
    let most = 0;
    // each node waits until it is released, so the test decides when nodes end, not the clock
    const release = new Map<string, () => void>();
    const started: string[] = [];
    const running = runGraph({
      order: ORDER,
      parentsOf: (node) => PARENTS[node]!,
      concurrency: 2,
      run: async (node, slot) => {
        expect(PARENTS[node]!.every((parent) => done.has(parent))).toBe(true);
        expect(inSlot.has(slot)).toBe(false);
        inSlot.set(slot, node);
        most = Math.max(most, inSlot.size);
        started.push(node);
        await new Promise<void>((resolve) => release.set(node, resolve));
        inSlot.delete(slot);
        done.add(node);
        return { failed: false, value: node };
      },
    });
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    await settle();
    expect(started).toEqual(['a1', 'b1']);
    release.get('b1')!();
    await settle();
    expect(started).toEqual(['a1', 'b1', 'b2']); // a2 waits for a1
    release.get('a1')!();
    await settle();
    expect(started).toEqual(['a1', 'b1', 'b2', 'a2']);
    release.get('a2')!();
    await settle();
    expect(started).not.toContain('c'); // b2 still runs
    release.get('b2')!();
    await settle();
    release.get('c')!();
    const outcomes = await running;
    expect(started).toEqual(['a1', 'b1', 'b2', 'a2', 'c']);
    expect(most).toBe(2);
    expect([...outcomes.values()].every((outcome) => outcome.status === 'ok')).toBe(true);
  });

  it('with concurrency 2, skips the descendants of a failure while the other branch runs', async () => {
    const outcomes = await runGraph({
      order: ORDER,
      parentsOf: (node) => PARENTS[node]!,
      concurrency: 2,
      run: async (node) => {
        if (node === 'a1') throw new Error('boom');
        return { failed: false, value: node };
      },
    });
    expect(outcomes.get('a2')).toEqual({ status: 'skipped', failedAncestor: 'a1', via: 'a1' });
    expect(outcomes.get('c')).toEqual({ status: 'skipped', failedAncestor: 'a1', via: 'a2' });
    expect(outcomes.get('b2')).toMatchObject({ status: 'ok' });
  });

  it('starts the ready node of the highest priority first, each still after its parents', async () => {
    const started: string[] = [];
    const waitingOn: Record<string, number> = { a1: 2, a2: 1, b1: 3, b2: 4, c: 0 };
    await runGraph({
      order: ORDER,
      parentsOf: (node) => PARENTS[node]!,
      priority: (node) => waitingOn[node]!,
      run: async (node) => {
        started.push(node);
        return { failed: false, value: node };
      },
    });
    // b1 before a1 (3 > 2), then b2 once ready (4), then a1, a2, c
    expect(started).toEqual(['b1', 'b2', 'a1', 'a2', 'c']);
  });

  it('treats parents outside the run as built', async () => {
    const outcomes = await runGraph({ order: ['c'], parentsOf: (node) => PARENTS[node]!, run: async () => ({ failed: false, value: 1 }) });
    expect(outcomes.get('c')).toEqual({ status: 'ok', value: 1 });
  });
});
