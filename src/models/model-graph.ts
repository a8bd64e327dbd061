import type { DuckDBConnection } from '@duckdb/node-api';
import { closeMatches } from './close-matches.js';
import { SEEDS_SCHEMA, SOURCE_SCHEMA } from './discover-project.js';
import type { MacroDefinition, ModelDefinition, ModelProject, SeedDefinition } from './discover-project.js';
import { emptyClubMacros } from './club/club-files.js';
import { identityOverridesMacro } from './identity-overrides.js';
import { readIdentityModelConfig } from './identity-model/config.js';
import { DEFAULT_IDENTITY_THRESHOLDS, identityModelMacros } from './identity-model/macros.js';
import { DEFAULT_MACRO_SETTINGS, macroCalls, parseMacros, settingMacros } from './macros.js';
import type { MacroNode } from './macros.js';
import { MODEL_SCHEMAS } from './model-header.js';
import { ModelProjectError } from './model-errors.js';
import type { ModelParse, ParseCache } from './parse-cache.js';
import { parseSelects, treeToSql, withoutSelfReferences } from './sql-references.js';

/** A node of the build graph: a seed CSV or a SQL model. Keyed by relation (`schema.name`). */
export type GraphNode =
  | { kind: 'seed'; relation: string; name: string; schema: string; file: string; seed: SeedDefinition; parents: []; sources: [] }
  | {
      kind: 'model';
      relation: string;
      name: string;
      schema: string;
      file: string;
      model: ModelDefinition;
      /** Models and seeds read, as relations. */
      parents: string[];
      /** `raw.*` tables read. */
      sources: string[];
      /** Macros called as `macros.<name>(...)`, by name; not nodes: build creates them all first. */
      macros: string[];
      /**
       * For an incremental model that reads its own table: the SQL of its first build, with the
       * WHERE conditions that read itself removed (see `withoutSelfReferences`).
       */
      firstBuildSql?: string;
    };

export interface ModelGraph {
  nodes: ReadonlyMap<string, GraphNode>;
  /** Every relation, parents before children; ties by layer, then name, so runs are repeatable. */
  order: readonly string[];
  children: ReadonlyMap<string, readonly string[]>;
  /** Every macro, by name: those of `sql/macros` and those derived from settings. */
  macros: ReadonlyMap<string, MacroNode>;
}

/**
 * The macros of a project built with the default settings: no identity overrides, empty club
 * files, and the identity model's configuration with no trained model (enough to parse every
 * model).
 */
async function defaultMacros(project: ModelProject): Promise<MacroDefinition[]> {
  const identity = await readIdentityModelConfig(project.root);
  return [
    ...settingMacros(DEFAULT_MACRO_SETTINGS),
    identityOverridesMacro([], 'none'),
    ...emptyClubMacros(),
    ...(identity ? identityModelMacros(identity, undefined, DEFAULT_IDENTITY_THRESHOLDS) : []),
    ...project.macros,
  ];
}

const LAYER_RANK: Record<string, number> = { [SEEDS_SCHEMA]: 0, staging: 1, intermediate: 2, marts: 3 };

/**
 * Parses every model with DuckDB and links them. Collects every problem before failing:
 * syntax errors, unqualified or unknown references, reads of a schema models may not read,
 * misplaced self-references, cycles (naming each file in the cycle), broken macros and calls
 * of unknown macros. `macros` defaults to the project's and those of the default settings
 * (no identity overrides, empty club files, no trained identity model). `cache`: the parses of
 * an earlier build, for the texts that are the same (a build's; see parse-cache.ts).
 *
 * @throws ModelProjectError
 */
export async function buildGraph(project: ModelProject, connection: DuckDBConnection, macros?: readonly MacroDefinition[], cache?: ParseCache): Promise<ModelGraph> {
  const parsedMacros = await parseMacrosCached(macros ?? (await defaultMacros(project)), cache);
  const problems: string[] = [...parsedMacros.problems];
  const nodes = new Map<string, GraphNode>();
  for (const seed of project.seeds) {
    nodes.set(seed.relation, { kind: 'seed', relation: seed.relation, name: seed.name, schema: SEEDS_SCHEMA, file: seed.file, seed, parents: [], sources: [] });
  }
  const known = new Set([...project.seeds.map((s) => s.relation), ...project.models.map((m) => m.relation)]);
  const relationByName = new Map([...known].map((relation) => [relation.split('.')[1]!, relation]));
  const suggest = (name: string, limit: number) => {
    const near = closeMatches(name, relationByName.keys(), limit).map((match) => relationByName.get(match)!);
    return near.length > 0 ? ` (did you mean ${near.join(', ')}?)` : '';
  };

  const parsedModels = await parseModels(connection, project.models, cache);
  for (const [at, model] of project.models.entries()) {
    const parsed = parsedModels[at]!;
    if ('problem' in parsed) {
      problems.push(`${model.file}: ${parsed.problem}`);
      continue;
    }
    const parents: string[] = [];
    const sources: string[] = [];
    let readsItself = false;
    const called = macroCalls(parsed.functions, parsedMacros.nodes);
    problems.push(...called.problems.map((problem) => `${model.file}: ${problem}`));
    for (const name of parsed.unqualified) {
      problems.push(`${model.file}: "${name}" is not schema-qualified${suggest(name, 1)}; models read raw.*, seeds.* and other models by schema.table`);
    }
    for (const { schema, table } of parsed.references) {
      const relation = `${schema}.${table}`;
      if (relation === model.relation) {
        readsItself = true;
      } else if (schema === SOURCE_SCHEMA) {
        sources.push(relation);
      } else if (schema === SEEDS_SCHEMA || (MODEL_SCHEMAS as readonly string[]).includes(schema)) {
        if (known.has(relation)) {
          parents.push(relation);
        } else {
          problems.push(`${model.file}: reads ${relation}, which is no model or seed${suggest(table, 3)}`);
        }
      } else {
        problems.push(`${model.file}: reads ${relation}; models may read only ${[SOURCE_SCHEMA, SEEDS_SCHEMA, ...MODEL_SCHEMAS].map((s) => `${s}.*`).join(', ')}`);
      }
    }
    for (const relation of model.fullRebuildOn.filter((relation) => !parents.includes(relation))) {
      problems.push(`${model.file}: full_rebuild_on names ${relation}, which the model does not read`);
    }
    let firstBuildSql: string | undefined;
    if (readsItself) {
      if (model.materialized !== 'incremental') problems.push(`${model.file}: reads itself (${model.relation}); only an incremental model may, in a WHERE condition`);
      else if (typeof parsed.firstBuildSql !== 'string') problems.push(`${model.file}: reads itself outside a WHERE condition; an incremental model may read ${model.relation} only in AND-ed WHERE conditions`);
      else firstBuildSql = parsed.firstBuildSql;
    }
    nodes.set(model.relation, { kind: 'model', relation: model.relation, name: model.name, schema: model.schema, file: model.file, model, parents, sources, macros: called.macros, firstBuildSql });
  }
  if (problems.length > 0) throw new ModelProjectError(problems, { root: project.root });

  const children = new Map<string, string[]>([...nodes.keys()].map((relation) => [relation, []]));
  for (const node of nodes.values()) for (const parent of node.parents) children.get(parent)!.push(node.relation);
  const order = topologicalOrder(nodes, children);
  if (order.length < nodes.size) {
    const cycle = findCycle(nodes, new Set(order));
    throw new ModelProjectError([`models form a cycle: ${cycle.map((relation) => nodes.get(relation)!.file).join(' -> ')}`], { root: project.root });
  }
  return { nodes, order, children, macros: parsedMacros.nodes };
}

/** parseMacros, or the parse `cache` kept of the same definitions; a parse without problems is kept. */
async function parseMacrosCached(definitions: readonly MacroDefinition[], cache: ParseCache | undefined): Promise<{ nodes: Map<string, MacroNode>; problems: string[] }> {
  const kept = cache?.macros(definitions);
  if (kept !== undefined) return { nodes: new Map(kept.map((node) => [node.name, node])), problems: [] };
  const parsed = await parseMacros(definitions);
  if (parsed.problems.length === 0) cache?.keepMacros(definitions, [...parsed.nodes.values()]);
  return parsed;
}

/**
 * Each model's parse (what it reads and calls, and an incremental model's first-build SQL when
 * it reads itself), from `cache` where it holds one for the same text; the rest parsed in one
 * query and kept. A model DuckDB cannot parse is its problem.
 */
async function parseModels(connection: DuckDBConnection, models: readonly ModelDefinition[], cache: ParseCache | undefined): Promise<(ModelParse | { problem: string })[]> {
  const found: (ModelParse | { problem: string } | undefined)[] = models.map((model) => cache?.model(model));
  const missing = [...models.keys()].filter((at) => found[at] === undefined);
  const parsed = await parseSelects(connection, missing.map((at) => models[at]!.sql));
  for (const [nth, at] of missing.entries()) {
    const model = models[at]!;
    const select = parsed[nth]!;
    let parse: ModelParse | { problem: string };
    if (!select.ok) {
      parse = { problem: select.problem };
    } else {
      parse = { references: select.references, unqualified: select.unqualified, functions: select.functions };
      if (model.materialized === 'incremental' && select.references.some(({ schema, table }) => `${schema}.${table}` === model.relation)) {
        const pruned = withoutSelfReferences(select.tree, { schema: model.schema, table: model.name });
        parse.firstBuildSql = pruned ? await treeToSql(connection, pruned) : null;
      }
      cache?.keepModel(model, parse);
    }
    found[at] = parse;
  }
  return found as (ModelParse | { problem: string })[];
}

/** Kahn's algorithm; nodes left out are in or behind a cycle. */
function topologicalOrder(nodes: ReadonlyMap<string, GraphNode>, children: ReadonlyMap<string, readonly string[]>): string[] {
  const waiting = new Map([...nodes.values()].map((node) => [node.relation, node.parents.length]));
  const ready = [...nodes.values()].filter((node) => node.parents.length === 0).map((node) => node.relation);
  const order: string[] = [];
  while (ready.length > 0) {
    ready.sort((a, b) => compareRelations(a, b));
    const next = ready.shift()!;
    order.push(next);
    for (const child of children.get(next) ?? []) {
      const left = waiting.get(child)! - 1;
      waiting.set(child, left);
      if (left === 0) ready.push(child);
    }
  }
  return order;
}

/** A cycle among the nodes not ordered, as relations, the first repeated at the end. */
function findCycle(nodes: ReadonlyMap<string, GraphNode>, ordered: ReadonlySet<string>): string[] {
  const stack: string[] = [];
  const onStack = new Set<string>();
  const done = new Set<string>();
  const visit = (relation: string): string[] | undefined => {
    stack.push(relation);
    onStack.add(relation);
    for (const parent of nodes.get(relation)!.parents) {
      if (ordered.has(parent) || done.has(parent)) continue;
      if (onStack.has(parent)) return [...stack.slice(stack.indexOf(parent)), parent].reverse();
      const found = visit(parent);
      if (found) return found;
    }
    stack.pop();
    onStack.delete(relation);
    done.add(relation);
    return undefined;
  };
  for (const relation of [...nodes.keys()].sort(compareRelations)) {
    if (ordered.has(relation) || done.has(relation)) continue;
    const found = visit(relation);
    if (found) return found;
  }
  return [];
}

export function compareRelations(a: string, b: string): number {
  const [schemaA = '', nameA = ''] = a.split('.');
  const [schemaB = '', nameB = ''] = b.split('.');
  return (LAYER_RANK[schemaA] ?? 9) - (LAYER_RANK[schemaB] ?? 9) || nameA.localeCompare(nameB);
}

/** `relation` and everything it reads, transitively, within the graph. */
export function ancestors(graph: ModelGraph, relation: string): Set<string> {
  return reach(relation, (r) => graph.nodes.get(r)?.parents ?? []);
}

/** `relation` and everything that reads it, transitively. */
export function descendants(graph: ModelGraph, relation: string): Set<string> {
  return reach(relation, (r) => graph.children.get(r) ?? []);
}

function reach(start: string, next: (relation: string) => readonly string[]): Set<string> {
  const seen = new Set<string>([start]);
  const queue = [start];
  while (queue.length > 0) {
    for (const relation of next(queue.shift()!)) {
      if (!seen.has(relation)) {
        seen.add(relation);
        queue.push(relation);
      }
    }
  }
  return seen;
}
