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
  /** Builds one node; resolves `failed: true` (or throws) when it did not build. */
  run: (node: string) => Promise<{ failed: boolean; value: T }>;
}

/**
 * Runs a DAG one node at a time, in `order`: a node with a failed or skipped parent is skipped
 * without running, while independent branches go on. Never rejects for a node's failure.
 * One at a time because DuckDB already spreads one query over the cores; models built on
 * parallel connections measured no faster.
 */
export async function runGraph<T>(options: RunGraphOptions<T>): Promise<Map<string, NodeOutcome<T>>> {
  const selected = new Set(options.order);
  const outcomes = new Map<string, NodeOutcome<T>>();
  for (const node of options.order) {
    const blocked = options.parentsOf(node).find((parent) => {
      const status = selected.has(parent) ? outcomes.get(parent)?.status : 'ok';
      return status === 'failed' || status === 'skipped';
    });
    if (blocked !== undefined) {
      const parentOutcome = outcomes.get(blocked)!;
      const failedAncestor = parentOutcome.status === 'skipped' ? parentOutcome.failedAncestor : blocked;
      outcomes.set(node, { status: 'skipped', failedAncestor, via: blocked });
      continue;
    }
    try {
      const result = await options.run(node);
      outcomes.set(node, result.failed ? { status: 'failed', value: result.value } : { status: 'ok', value: result.value });
    } catch (error) {
      outcomes.set(node, { status: 'failed', error });
    }
  }
  return outcomes;
}
