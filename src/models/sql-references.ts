import { type DuckDBConnection, DuckDBListValue } from '@duckdb/node-api';

/** A schema-qualified table a model reads, lowercased (DuckDB matches identifiers case-insensitively). */
export interface TableReference {
  schema: string;
  table: string;
}

/** A function call in a parse tree: `macros.phone_e164(...)` has schema `macros`; built-ins have schema `''`. */
export interface FunctionReference {
  schema: string;
  name: string;
}

/** DuckDB's parse tree of one statement, as `json_serialize_sql` writes it. */
export type SqlTree = Record<string, unknown>;

export type ParsedSelect =
  | {
      ok: true;
      tree: SqlTree;
      /** Qualified tables read, in order of first appearance, without duplicates. */
      references: TableReference[];
      /** Unqualified names that are not CTEs in scope: models must qualify what they read. */
      unqualified: string[];
      /** Functions called, lowercased, in order of first appearance, without duplicates. */
      functions: FunctionReference[];
    }
  | { ok: false; problem: string };

/**
 * Asks DuckDB to parse `sql` (no binding, so the tables need not exist) and lists the tables it
 * reads: every `BASE_TABLE` node of the tree, minus CTE names visible where the node sits.
 * Table functions (`read_parquet(...)`) are not tables and are not listed.
 */
export async function parseSelect(connection: DuckDBConnection, sql: string): Promise<ParsedSelect> {
  return (await parseSelects(connection, [sql]))[0]!;
}

/**
 * `parseSelect` of many statements in one query, in their order: a build parses every model,
 * and a round trip to DuckDB per model adds up over a few hundred models.
 */
export async function parseSelects(connection: DuckDBConnection, sqls: readonly string[]): Promise<ParsedSelect[]> {
  if (sqls.length === 0) return [];
  const reader = await connection.runAndReadAll('select list_transform($1::varchar[], statement -> json_serialize_sql(statement)) as trees', [
    new DuckDBListValue([...sqls]),
  ]);
  const trees = reader.getRowObjectsJson()[0]!.trees as unknown[];
  return sqls.map((sql, at) => fromTree(sql, String(trees[at])));
}

/** One statement's `json_serialize_sql` answer, read as `parseSelect` describes. */
function fromTree(sql: string, json: string): ParsedSelect {
  const result = JSON.parse(json) as {
    error: boolean;
    error_message?: string;
    position?: string;
    statements?: SqlTree[];
  };
  if (result.error) {
    const where = result.position === undefined ? '' : ` (line ${lineOf(sql, Number(result.position))})`;
    const message = result.error_message ?? 'cannot be parsed';
    return {
      ok: false,
      problem: /only select/i.test(message) ? 'a model must be a single SELECT statement (CTEs welcome)' : `${message}${where}`,
    };
  }
  const statements = result.statements ?? [];
  if (statements.length !== 1) return { ok: false, problem: `a model must be a single SELECT statement; found ${statements.length}` };
  const tree = statements[0]!;
  const references: TableReference[] = [];
  const unqualified: string[] = [];
  walkTables(tree, new Set(), (node, ctes) => {
    const table = String(node.table_name).toLowerCase();
    const schema = String(node.schema_name ?? '').toLowerCase();
    if (schema === '') {
      if (!ctes.has(table) && !unqualified.includes(table)) unqualified.push(table);
    } else if (!references.some((ref) => ref.schema === schema && ref.table === table)) {
      references.push({ schema, table });
    }
  });
  return { ok: true, tree, references, unqualified, functions: functionCalls(tree) };
}

/**
 * Every function call of a parse tree (scalar, aggregate and window functions; macros are
 * calls too, since the parser does not bind names). Operators DuckDB parses as functions
 * (`||`, `~~`) carry no schema and are listed like any built-in.
 */
export function functionCalls(tree: unknown): FunctionReference[] {
  const calls: FunctionReference[] = [];
  visitNodes(tree, (node) => {
    if ((node.class === 'FUNCTION' || node.class === 'WINDOW') && typeof node.function_name === 'string') {
      const call = { schema: String(node.schema ?? '').toLowerCase(), name: node.function_name.toLowerCase() };
      if (!calls.some((known) => known.schema === call.schema && known.name === call.name)) calls.push(call);
    }
  });
  return calls;
}

/** Calls `visit` on every object of a parse tree, parents before their children. */
export function visitNodes(tree: unknown, visit: (node: SqlTree) => void): void {
  if (Array.isArray(tree)) {
    for (const item of tree) visitNodes(item, visit);
    return;
  }
  if (tree === null || typeof tree !== 'object') return;
  visit(tree as SqlTree);
  for (const value of Object.values(tree)) visitNodes(value, visit);
}

/**
 * The tree with every WHERE condition that reads `self` removed, for the first build of an
 * incremental model whose filter reads its own table (which does not exist yet). Conditions are
 * removed per AND-ed term, so `where a > 1 and ts > (select max(ts) from self)` keeps `a > 1`.
 * Returns `undefined` when `self` is still read somewhere else (FROM, SELECT list, ...).
 */
export function withoutSelfReferences(tree: SqlTree, self: TableReference): SqlTree | undefined {
  const reads = (node: unknown) => {
    let found = false;
    walkTables(node, new Set(), (table) => {
      if (String(table.schema_name).toLowerCase() === self.schema && String(table.table_name).toLowerCase() === self.table) found = true;
    });
    return found;
  };
  const prune = (expression: unknown): unknown => {
    if (!reads(expression)) return expression;
    const node = expression as SqlTree;
    if (node.type !== 'CONJUNCTION_AND' || !Array.isArray(node.children)) return null;
    const kept = node.children.map(prune).filter((child) => child !== null);
    if (kept.length === 0) return null;
    return kept.length === 1 ? kept[0] : { ...node, children: kept };
  };
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (node === null || typeof node !== 'object') return node;
    const copy: SqlTree = {};
    for (const [key, value] of Object.entries(node)) copy[key] = key === 'where_clause' ? rewrite(prune(value)) : rewrite(value);
    return copy;
  };
  const rewritten = rewrite(tree) as SqlTree;
  return reads(rewritten) ? undefined : rewritten;
}

/** SQL text of a (rewritten) tree, through DuckDB's own `json_deserialize_sql`. */
export async function treeToSql(connection: DuckDBConnection, tree: SqlTree): Promise<string> {
  // DuckDB marks "no location" with the largest uint64, which a JavaScript number rounds to
  // 18446744073709552000; DuckDB rejects that, so the exact value is written back.
  const json = JSON.stringify({ error: false, statements: [tree] }).replaceAll('"query_location":18446744073709552000', '"query_location":18446744073709551615');
  const reader = await connection.runAndReadAll('select json_deserialize_sql($1::json) as sql', [json]);
  return String(reader.getRowObjectsJson()[0]!.sql);
}

/**
 * The statement ready to be nested (`create view x as (...)`): trailing semicolons removed.
 * Callers wrap it between newlines so a trailing `-- comment` cannot swallow their `)`.
 */
export function selectBody(sql: string): string {
  return sql.replace(/(;|\s|--[^\n]*)*$/, (tail) => (tail.includes(';') ? '' : tail)).trimEnd();
}

function walkTables(node: unknown, ctes: ReadonlySet<string>, visit: (table: SqlTree, ctes: ReadonlySet<string>) => void): void {
  if (Array.isArray(node)) {
    for (const item of node) walkTables(item, ctes, visit);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const object = node as SqlTree;
  let scope = ctes;
  const cteMap = (object.cte_map as { map?: { key: string }[] } | undefined)?.map;
  if (cteMap && cteMap.length > 0) scope = new Set([...ctes, ...cteMap.map((entry) => entry.key.toLowerCase())]);
  if (object.type === 'BASE_TABLE' && typeof object.table_name === 'string') visit(object, scope);
  for (const value of Object.values(object)) walkTables(value, scope, visit);
}

/** 1-based line of a byte offset (DuckDB reports positions in UTF-8 bytes). */
function lineOf(sql: string, position: number): number {
  const before = Buffer.from(sql, 'utf8').subarray(0, position).toString('utf8');
  return before.split('\n').length;
}
