import { FanlakeError } from '../../core/errors.js';
import { type EndpointDeclaration, tablesOf } from '../../sources/endpoint-declaration.js';
import { CODE } from '../../core/error-codes.js';

export interface PlannedEndpoint<S> {
  readonly endpoint: EndpointDeclaration<S>;
  /** Why it is left off (reported as a skipped result); undefined when it runs. */
  readonly skipped?: string;
}

/**
 * Which endpoints a run reads. An endpoint runs when one of its tables is asked for, or
 * when a fan-out that runs needs its items; an endpoint whose hook says why it is left
 * off is reported as skipped when it was asked for. A fan-out's parent must be declared
 * before it, so the plan is one pass from children to parents.
 */
export function planEndpoints<S>(endpoints: readonly EndpointDeclaration<S>[], settings: S, only?: readonly string[]): PlannedEndpoint<S>[] {
  const owner = new Map<string, EndpointDeclaration<S>>();
  for (const endpoint of endpoints) {
    const parent = endpoint.fanOut?.parent;
    if (parent !== undefined && !owner.has(parent)) {
      throw new FanlakeError(CODE.E_DECLARATION, `endpoint ${endpoint.name} fans out over ${parent}, which no earlier endpoint writes`);
    }
    for (const table of tablesOf(endpoint)) owner.set(table.name, endpoint);
  }
  const asked = (endpoint: EndpointDeclaration<S>) => !only || tablesOf(endpoint).some((table) => only.includes(table.name));
  const why = new Map(endpoints.map((endpoint) => [endpoint, endpoint.skip?.(settings)]));
  const runs = new Set<EndpointDeclaration<S>>();
  for (const endpoint of [...endpoints].reverse()) {
    const needed = asked(endpoint) || endpoints.some((child) => runs.has(child) && child.fanOut?.parent !== undefined && owner.get(child.fanOut.parent) === endpoint);
    if (needed && why.get(endpoint) === undefined) runs.add(endpoint);
  }
  // A fan-out whose parent is left off would wait for items that never come.
  for (const endpoint of endpoints) {
    const parent = endpoint.fanOut?.parent;
    if (parent === undefined || !runs.has(endpoint) || runs.has(owner.get(parent)!)) continue;
    runs.delete(endpoint);
    why.set(endpoint, `its parent ${parent} is left off: ${why.get(owner.get(parent)!) ?? 'not read'}`);
  }
  return endpoints.flatMap((endpoint): PlannedEndpoint<S>[] => {
    if (runs.has(endpoint)) return [{ endpoint }];
    const skipped = why.get(endpoint);
    return skipped !== undefined && asked(endpoint) ? [{ endpoint, skipped }] : [];
  });
}
