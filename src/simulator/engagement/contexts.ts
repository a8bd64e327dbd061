import type { Router } from '../http/router.js';
import { failure, json } from '../http/router.js';
import { intParam, param, v2 } from './guard.js';
import type { EngagementApiState } from './state.js';

/**
 * The context tree (application/json, no module prerequisite). By id: the node with its
 * children to `depth` (the whole subtree when absent), `parent` null. By customData
 * field: every matching node with its ancestor chain in `parent` (ancestors without
 * children). `isRoot` is true on the nodes selected as result roots only.
 */
export function contextRoutes(router: Router, state: EngagementApiState): void {
  const { data } = state;
  const { nodes } = data.contexts;
  const render = (index: number, isRoot: boolean, parent: unknown, children: unknown[]) => ({
    ...data.contextRecord(nodes[index]!),
    isRoot,
    parent,
    children,
  });
  const subtree = (index: number, depth: number, isRoot: boolean, parent: unknown = null): unknown =>
    render(index, isRoot, parent, depth > 0 ? nodes[index]!.children.map((child) => subtree(child, depth - 1, false)) : []);
  const ancestors = (index: number): unknown => {
    const parent = nodes[index]!.parent;
    return parent < 0 ? null : render(parent, false, ancestors(parent), []);
  };
  const depthOf = (query: URLSearchParams) => intParam(query, 'depth', Number.POSITIVE_INFINITY, 0, Number.MAX_SAFE_INTEGER);

  router.get('/v2/:orgId/mypage/contexts/:id', v2(state, undefined, ({ params, query }) => {
    const depth = depthOf(query);
    const index = data.contexts.indexOf(params.id!);
    if (index < 0) return failure(404, `Could not find Context: ${params.id}`);
    return json(200, subtree(index, depth, true));
  }));

  // The document names the field parameter fieldType, a sample uses fieldName: both are accepted.
  router.get('/v2/:orgId/mypage/context', v2(state, undefined, ({ query }) => {
    const field = param(query, 'fieldType') ?? param(query, 'fieldName');
    const value = param(query, 'fieldValue');
    if (!field || value === null) return failure(400, 'fieldType and fieldValue are required');
    const depth = depthOf(query);
    return json(200, data.contexts.matching(field, value).map((index) => subtree(index, depth, true, ancestors(index))));
  }));
}
