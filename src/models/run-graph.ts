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
  /** Nodes in flight at once; each gets a slot number below this, free for it alone. */
  concurrency: number;
  /** Builds one node; resolves `failed: true` (or throws) when it did not build. */
  run: (node: string, slot: number) => Promise<{ failed: boolean; value: T }>;
}

/**
 * Runs a DAG: a node starts once all its parents are ok; a node with a failed or skipped parent
 * is skipped without running, while independent branches go on. Never rejects for a node's
 * failure; nodes start in `order` whenever a slot is free, so `concurrency: 1` is sequential.
 */
export function runGraph<T>(options: RunGraphOptions<T>): Promise<Map<string, NodeOutcome<T>>> {
  const selected = new Set(options.order);
  const outcomes = new Map<string, NodeOutcome<T>>();
  const pending = [...options.order];
  const freeSlots = Array.from({ length: Math.max(1, options.concurrency) }, (_, slot) => slot).reverse();
  let running = 0;

  return new Promise((resolve, reject) => {
    const pump = (): void => {
      for (let index = 0; index < pending.length; ) {
        const node = pending[index]!;
        const parents = options.parentsOf(node).filter((parent) => selected.has(parent));
        const blocked = parents.find((parent) => {
          const status = outcomes.get(parent)?.status;
          return status === 'failed' || status === 'skipped';
        });
        if (blocked !== undefined) {
          const parentOutcome = outcomes.get(blocked)!;
          const failedAncestor = parentOutcome.status === 'skipped' ? parentOutcome.failedAncestor : blocked;
          outcomes.set(node, { status: 'skipped', failedAncestor, via: blocked });
          pending.splice(index, 1);
        } else if (freeSlots.length > 0 && parents.every((parent) => outcomes.get(parent)?.status === 'ok')) {
          pending.splice(index, 1);
          start(node, freeSlots.pop()!);
        } else {
          index++;
        }
      }
      if (running === 0) {
        if (pending.length === 0) resolve(outcomes);
        else reject(new Error(`graph run stalled with ${pending.join(', ')} waiting`));
      }
    };

    const start = (node: string, slot: number): void => {
      running++;
      options
        .run(node, slot)
        .then(
          (result) => outcomes.set(node, result.failed ? { status: 'failed', value: result.value } : { status: 'ok', value: result.value }),
          (error: unknown) => outcomes.set(node, { status: 'failed', error }),
        )
        .finally(() => {
          running--;
          freeSlots.push(slot);
          pump();
        });
    };

    pump();
  });
}
