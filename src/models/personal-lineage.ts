import type { PersonalColumn } from '../sources/personal-data.js';
import type { ModelGraph } from './model-graph.js';
import { type SqlTree, visitNodes } from './sql-references.js';

/**
 * Expressions whose value says nothing about a person even when they read personal data: a
 * yes/no answer, a count, a length, a similarity. Their operands are not followed. Functions
 * are matched by name, in any schema (`macros.identity_levels` too).
 */
const OPAQUE_CLASSES = new Set(['COMPARISON', 'CONJUNCTION', 'BETWEEN']);
const OPAQUE_OPERATORS = new Set(['OPERATOR_IS_NULL', 'OPERATOR_IS_NOT_NULL', 'OPERATOR_NOT', 'COMPARE_IN', 'COMPARE_NOT_IN']);
const OPAQUE_FUNCTIONS = new Set([
  'count', 'count_star', 'approx_count_distinct', 'length', 'strlen', 'len', 'array_length',
  '~~', '!~~', '~~*', '!~~*', 'regexp_matches', 'regexp_full_match', 'contains', 'starts_with', 'ends_with', 'prefix', 'suffix',
  'bool_or', 'bool_and',
  // Similarities and the identity model's comparison of two records give levels and scores.
  'levenshtein', 'damerau_levenshtein', 'jaro_similarity', 'jaro_winkler_similarity', 'jaccard', 'within_edits', 'identity_levels',
  // DuckDB's 64-bit hash is a change signature (int_fan_contacts), not a stand-in for the value; md5 and sha256 still carry it.
  'hash',
]);

/** Parts of a node that decide which rows or in what order, never what a column holds. */
const NON_VALUE_KEYS = new Set([
  'where_clause', 'having', 'qualify', 'group_expressions', 'group_sets', 'from_table', 'partitions', 'orders',
  'order_bys', 'filter', 'filter_expr', 'when_expr', 'cte_map', 'modifiers', 'arg_orders', 'sample',
]);

/**
 * The column names of a model that may carry personal data, by name: the personal columns of
 * what it reads, and every select-list entry, in any CTE or subquery, whose value is computed
 * from one of those names (followed to a fixpoint, so `lower(email) as mail` then `mail as m`
 * both count). `select *` keeps names, so a personal name passes through it.
 *
 * This is lineage by column name, not by binding: a column is followed by its name alone,
 * whichever table it comes from, so two tables that share a column name share its verdict
 * (erring towards "personal"); what a table macro returns, and values moved through a join
 * condition, are not followed. Comparisons, counts and lengths end a path (see above).
 */
export function personalNames(tree: SqlTree, inputs: Iterable<string>): Set<string> {
  const personal = new Set([...inputs].map((name) => name.toLowerCase()));
  const entries = selectEntries(tree);
  for (let grew = true; grew; ) {
    grew = false;
    for (const entry of entries) {
      const name = outputName(entry);
      if (name === undefined || personal.has(name)) continue;
      if (readsAny(entry, personal)) {
        personal.add(name);
        grew = true;
      }
    }
  }
  return personal;
}

/** Every select-list expression of the tree, from every SELECT node (CTEs, subqueries, unions). */
function selectEntries(tree: unknown): SqlTree[] {
  const found: SqlTree[] = [];
  visitNodes(tree, (node) => {
    if (node.type === 'SELECT_NODE' && Array.isArray(node.select_list)) found.push(...(node.select_list as SqlTree[]));
  });
  return found;
}

/** The name a select-list entry gives its column: its alias, or a column reference's own name. */
function outputName(entry: SqlTree): string | undefined {
  if (typeof entry.alias === 'string' && entry.alias !== '') return entry.alias.toLowerCase();
  if (entry.class === 'COLUMN_REF' && Array.isArray(entry.column_names)) return String(entry.column_names.at(-1)).toLowerCase();
  return undefined;
}

/** Whether an expression's value is computed from a column named in `names`. */
function readsAny(node: unknown, names: ReadonlySet<string>): boolean {
  if (Array.isArray(node)) return node.some((item) => readsAny(item, names));
  if (node === null || typeof node !== 'object') return false;
  const object = node as SqlTree;
  // `a.b` is a table's column or a column's field, `a.b.c` a field of `a.b`: the first two parts
  // may name the column, and a field of a struct that is not personal is not either.
  if (object.class === 'COLUMN_REF' && Array.isArray(object.column_names)) return object.column_names.slice(0, 2).some((part) => names.has(String(part).toLowerCase()));
  if (OPAQUE_CLASSES.has(String(object.class)) || OPAQUE_OPERATORS.has(String(object.type))) return false;
  if ((object.class === 'FUNCTION' || object.class === 'WINDOW') && OPAQUE_FUNCTIONS.has(String(object.function_name).toLowerCase())) return false;
  if (object.class === 'SUBQUERY' && object.subquery_type !== 'SCALAR') return false;
  // A nested query's value is what its select list computes.
  if (object.type === 'SELECT_NODE') return readsAny(object.select_list, names);
  return Object.entries(object).some(([key, value]) => !NON_VALUE_KEYS.has(key) && readsAny(value, names));
}

/** What the header of one model should say about personal data and does not. */
export interface PersonalDeclarationProblem {
  /** `sql/marts/dim_fan.sql`. */
  file: string;
  /** Output columns computed from a personal column (by name, see `personalNames`) the header does not declare. */
  undeclared: string[];
  /** Columns the header declares that the built model does not have. */
  unknown: string[];
}

/**
 * Checks each model's `-- personal:` against what it reads: in build order, a model's inputs
 * are the declared personal columns of the raw tables and models it reads, so each model is
 * judged by its parents' declarations; columns its header says are `not_personal` pass.
 * `columnsOf` gives a built relation's columns.
 */
export function checkPersonalDeclarations(
  graph: ModelGraph,
  trees: ReadonlyMap<string, SqlTree>,
  rawPersonal: readonly PersonalColumn[],
  columnsOf: (relation: string) => readonly string[] | undefined,
): PersonalDeclarationProblem[] {
  const declared = new Map<string, Set<string>>();
  for (const { relation, column } of rawPersonal) declared.set(relation, (declared.get(relation) ?? new Set()).add(column.toLowerCase()));
  const problems: PersonalDeclarationProblem[] = [];
  for (const relation of graph.order) {
    const node = graph.nodes.get(relation)!;
    if (node.kind !== 'model') continue;
    const own = new Set(Object.keys(node.model.personal).map((column) => column.toLowerCase()));
    declared.set(relation, own);
    const inputs = [...node.parents, ...node.sources].flatMap((parent) => [...(declared.get(parent) ?? [])]);
    const columns = (columnsOf(relation) ?? []).map((column) => column.toLowerCase());
    const carried = personalNames(trees.get(relation)!, inputs);
    const cleared = new Set(node.model.notPersonal.map((column) => column.toLowerCase()));
    const undeclared = columns.filter((column) => carried.has(column) && !own.has(column) && !cleared.has(column));
    const unknown = columns.length === 0 ? [] : [...own].filter((column) => !columns.includes(column));
    if (undeclared.length > 0 || unknown.length > 0) problems.push({ file: node.file, undeclared, unknown });
  }
  return problems;
}
