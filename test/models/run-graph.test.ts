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

  it('treats parents outside the run as built', async () => {
    const outcomes = await runGraph({ order: ['c'], parentsOf: (node) => PARENTS[node]!, run: async () => ({ failed: false, value: 1 }) });
    expect(outcomes.get('c')).toEqual({ status: 'ok', value: 1 });
  });
});
