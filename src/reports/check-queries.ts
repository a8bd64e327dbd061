import type { DuckDBConnection } from '@duckdb/node-api';
import { parseSelects } from '../models/sql-references.js';
import type { SqlTree } from '../models/sql-references.js';
import { closeMatches } from '../models/close-matches.js';
import type { ReportDefinition } from './report-definition.js';

/** What DuckDB's parser says a report query reads and which parameters it binds. */
export interface QueryShape {
  /** `schema.table`, lowercased. */
  relations: string[];
  /** `$name` parameters, in order of first use. */
  params: string[];
}

/**
 * Checks every query of a report with DuckDB's parser (nothing is bound, so the warehouse need
 * not exist): one SELECT, reading only `readable` relations (models of `sql/marts` and the
 * `meta` tables), with only named parameters the report declares. Returns the shape of each
 * query and every problem found.
 */
export async function checkQueries(
  connection: DuckDBConnection,
  report: ReportDefinition,
  readable: ReadonlySet<string>,
): Promise<{ shapes: Map<string, QueryShape>; problems: string[] }> {
  const problems: string[] = [];
  const shapes = new Map<string, QueryShape>();
  const declared = new Set(report.meta.params.map((param) => param.name));
  const queries = [...report.queries.values()];
  // one round trip to the parser for all of them: one each cost more than the parsing
  const trees = await parseSelects(connection, queries.map((query) => query.sql));
  for (const [at, query] of queries.entries()) {
    const where = `${report.file}: sql block ${query.name} at line ${query.line}`;
    const parsed = trees[at]!;
    if (!parsed.ok) {
      problems.push(`${where}: ${parsed.problem.replace('a model must', 'a query must')}`);
      continue;
    }
    for (const name of parsed.unqualified) problems.push(`${where}: ${name} is not schema-qualified; read marts.<model> or meta.<table>`);
    const relations = parsed.references.map((ref) => `${ref.schema}.${ref.table}`);
    for (const relation of relations.filter((r) => !readable.has(r))) {
      const near = closeMatches(relation, readable, 2);
      problems.push(`${where}: ${relation} is neither a model in sql/marts nor a meta table${near.length > 0 ? ` (did you mean ${near.join(', ')}?)` : ''}`);
    }
    const params = parameterNames(parsed.tree);
    for (const param of params) {
      if (!/^[a-z][a-z0-9_]*$/.test(param)) problems.push(`${where}: parameters are named ($season), not positional ($1 or ?)`);
      else if (!declared.has(param)) problems.push(`${where}: parameter $${param} is not declared in the front matter's params`);
    }
    shapes.set(query.name, { relations, params });
  }
  return { shapes, problems };
}

function parameterNames(tree: SqlTree): string[] {
  const names: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node === null || typeof node !== 'object') return;
    const object = node as SqlTree;
    if (object.type === 'VALUE_PARAMETER') {
      const name = String(object.identifier ?? '');
      if (!names.includes(name)) names.push(name);
    }
    Object.values(object).forEach(walk);
  };
  walk(tree);
  return names;
}
