/** What became of one node of a graph run. */
export type NodeOutcome<T> =
  | { status: 'ok'; value: T }
  | { status: 'failed'; value?: T; error?: unknown }
  | {
      status: 'skipped';
      /** The failed node this one depends on, possibly through skipped ones. */
      failedAncestor: string;
      /** The direct parent that did not build (equals `failedAncestor` when it failed itself). */
      via: string;
    };

export interface RunGraphOptions<T> {
  /** The nodes to run, parents before children. */
  order: readonly string[];
  /** A node's parents; those not in `order` are taken as already built. */
  parentsOf: (node: string) => readonly string[];
  /**
   * Builds one node; resolves `failed: true` (or throws) when it did not build. `slot`
   * (0 ≤ slot < concurrency) is the one it runs in: no two nodes run in one slot at once.
   */
  run: (node: string, slot: number) => Promise<{ failed: boolean; value: T }>;
  /** Nodes run at once, each as soon as its parents are done; default 1 (one at a time, in `order`). */
  concurrency?: number;
  /**
   * Of the nodes ready to run, the one with the highest priority starts first (ties: the earlier
   * in `order`); by default the earliest in `order`.
   */
  priority?: (node: string) => number;
}

/**
 * Runs a DAG: each node once its parents have run, up to `concurrency` at once, the earliest
 * in `order` first. A node with a failed or skipped parent is skipped without running, while
 * independent branches go on. Never rejects for a node's failure.
 */
export async function runGraph<T>(options: RunGraphOptions<T>): Promise<Map<string, NodeOutcome<T>>> {
  const selected = new Set(options.order);
  const outcomes = new Map<string, NodeOutcome<T>>();
  const waiting = [...options.order];
  const running = new Set<string>();
  const freeSlots = Array.from({ length: Math.max(1, options.concurrency ?? 1) }, (_, slot) => slot);
  const finished = (parent: string) => !selected.has(parent) || outcomes.has(parent);

  const blockedParent = (node: string) =>
    options.parentsOf(node).find((parent) => {
      const status = selected.has(parent) ? outcomes.get(parent)!.status : 'ok';
      return status === 'failed' || status === 'skipped';
    });

  // The waiting node to start next: of those whose parents are all done, the first by priority;
  // those with a parent that failed or was skipped are settled as skipped on the way.
  const nextReady = (): string | undefined => {
    let best: number | undefined;
    for (let at = 0; at < waiting.length; ) {
      const node = waiting[at]!;
      if (!options.parentsOf(node).every(finished)) {
        at++;
        continue;
      }
      const blocked = blockedParent(node);
      if (blocked !== undefined) {
        waiting.splice(at, 1);
        const parentOutcome = outcomes.get(blocked)!;
        const failedAncestor = parentOutcome.status === 'skipped' ? parentOutcome.failedAncestor : blocked;
        outcomes.set(node, { status: 'skipped', failedAncestor, via: blocked });
        at = 0; // its children may be settled now
        best = undefined;
        continue;
      }
      if (best === undefined || (options.priority !== undefined && options.priority(node) > options.priority(waiting[best]!))) best = at;
      if (options.priority === undefined) break;
      at++;
    }
    return best === undefined ? undefined : waiting.splice(best, 1)[0];
  };

  await new Promise<void>((done) => {
    const fill = () => {
      while (freeSlots.length > 0) {
        const node = nextReady();
        if (node === undefined) break;
        const slot = freeSlots.shift()!;
        running.add(node);
        void runNode(node, slot).then((outcome) => {
          outcomes.set(node, outcome);
          running.delete(node);
          freeSlots.push(slot);
          freeSlots.sort((a, b) => a - b);
          fill();
        });
      }
      if (running.size === 0) done();
    };
    fill();
  });
  return outcomes;

  async function runNode(node: string, slot: number): Promise<NodeOutcome<T>> {
    try {
      const result = await options.run(node, slot);
      return result.failed ? { status: 'failed', value: result.value } : { status: 'ok', value: result.value };
    } catch (error) {
      return { status: 'failed', error };
    }
  }
}
