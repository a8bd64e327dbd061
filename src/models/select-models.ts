import { UsageError } from '../core/errors.js';
import { closeMatches } from './close-matches.js';
import { ancestors, descendants } from './model-graph.js';
import type { ModelGraph } from './model-graph.js';

/**
 * Resolves `--select` selectors to relations, in build order. A selector is a model or seed
 * name, bare (`stg_ticketing__tickets`) or qualified (`staging.stg_ticketing__tickets`), with
 * optional graph operators: `+name` adds its parents (transitively), `name+` its children,
 * `+name+` both. Several selectors are a union. No selectors select everything.
 *
 * @throws UsageError for a name that is neither a model nor a seed, listing close matches.
 */
export function selectModels(graph: ModelGraph, selectors: readonly string[] = []): string[] {
  if (selectors.length === 0) return [...graph.order];
  const selected = new Set<string>();
  for (const selector of selectors) {
    const match = /^(\+?)([^+]+)(\+?)$/.exec(selector.trim());
    if (!match) throw new UsageError(`--select "${selector}": write name, +name, name+ or +name+`);
    const [, up, name, down] = match as unknown as [string, string, string, string];
    const relation = resolveName(graph, name);
    selected.add(relation);
    if (up) for (const parent of ancestors(graph, relation)) selected.add(parent);
    if (down) for (const child of descendants(graph, relation)) selected.add(child);
  }
  return graph.order.filter((relation) => selected.has(relation));
}

function resolveName(graph: ModelGraph, name: string): string {
  const wanted = name.toLowerCase();
  for (const node of graph.nodes.values()) {
    if (node.relation === wanted || node.name === wanted) return node.relation;
  }
  const names = [...graph.nodes.values()].map((node) => node.name);
  const near = closeMatches(wanted.includes('.') ? wanted.split('.').pop()! : wanted, names);
  const hint = near.length > 0 ? `; did you mean ${near.join(', ')}?` : names.length === 0 ? '; there are no models' : '';
  throw new UsageError(`--select: no model or seed named "${name}"${hint}`, { model: name });
}
