/**
 * The one-line grammar of a generic data test, shared by model headers (`-- test: ...`) and
 * `sql/sources.json` (`"tests": [...]`):
 *
 * ```text
 * unique(col [, col ...])                  no two rows share the combination (rows where every column is null are ignored)
 * not_null(col [, col ...])                no row has a null in any of the columns
 * relationships(col -> schema.table.col)   every non-null value exists in the other table's column
 * accepted_values(col: v1, v2, 'v, 3')     every non-null value, as text, is one of the listed values
 * ```
 *
 * Columns are bare identifiers or `"double quoted"`; values are bare words or `'single quoted'`
 * (`''` inside quotes is a quote). Identifiers match case-insensitively, as in DuckDB.
 */
export const TEST_KINDS = ['unique', 'not_null', 'relationships', 'accepted_values'] as const;
export type TestKind = (typeof TEST_KINDS)[number];

/** `error` fails `check` (exit 1); `warn` is reported and does not. */
export const SEVERITIES = ['error', 'warn'] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface ColumnRef {
  schema: string;
  table: string;
  column: string;
}

export type TestDeclaration =
  | { kind: 'unique'; columns: string[] }
  | { kind: 'not_null'; columns: string[] }
  | { kind: 'relationships'; column: string; to: ColumnRef }
  | { kind: 'accepted_values'; column: string; values: string[] };

export type ParsedDeclaration = { ok: true; declaration: TestDeclaration } | { ok: false; problem: string };

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$]*$/;

/** Parses one declaration such as `not_null(fan_id, email)`; never throws. */
export function parseTestDeclaration(text: string): ParsedDeclaration {
  const match = /^\s*([a-z_]+)\s*\((.*)\)\s*$/s.exec(text);
  if (!match) return fail(`"${text}" is not a test; write kind(arguments), kinds: ${TEST_KINDS.join(', ')}`);
  const [, kind, body] = match as unknown as [string, string, string];
  try {
    switch (kind) {
      case 'unique':
      case 'not_null': {
        const columns = splitOutside(body, ',').map(identifier);
        if (columns.length === 0) return fail(`${kind}() needs at least one column`);
        return { ok: true, declaration: { kind, columns } };
      }
      case 'relationships': {
        const parts = body.split('->');
        if (parts.length !== 2) return fail(`relationships needs "column -> schema.table.column", got "${body.trim()}"`);
        const target = splitOutside(parts[1]!, '.').map(identifier);
        if (target.length !== 3) return fail(`relationships target must be schema.table.column, got "${parts[1]!.trim()}"`);
        const [schema, table, column] = target as [string, string, string];
        return { ok: true, declaration: { kind, column: identifier(parts[0]!), to: { schema, table, column } } };
      }
      case 'accepted_values': {
        const [columnText, ...rest] = splitOutside(body, ':');
        if (columnText === undefined || rest.length !== 1) return fail(`accepted_values needs "column: value, value", got "${body.trim()}"`);
        const values = splitOutside(rest[0]!, ',').map(value);
        if (values.length === 0) return fail('accepted_values needs at least one value');
        return { ok: true, declaration: { kind, column: identifier(columnText), values } };
      }
      default:
        return fail(`unknown test kind "${kind}"; kinds: ${TEST_KINDS.join(', ')}`);
    }
  } catch (error) {
    return fail(`${kind}(${body}): ${(error as Error).message}`);
  }
}

/** Short, stable label of a declaration, e.g. `accepted_values(system)`; used in test names. */
export function describeDeclaration(declaration: TestDeclaration): string {
  switch (declaration.kind) {
    case 'unique':
    case 'not_null':
      return `${declaration.kind}(${declaration.columns.join(', ')})`;
    case 'relationships':
      return `relationships(${declaration.column} -> ${declaration.to.schema}.${declaration.to.table}.${declaration.to.column})`;
    case 'accepted_values':
      return `accepted_values(${declaration.column})`;
  }
}

function fail(problem: string): ParsedDeclaration {
  return { ok: false, problem };
}

function identifier(raw: string): string {
  const text = raw.trim();
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) return text.slice(1, -1).replaceAll('""', '"');
  if (!IDENTIFIER.test(text)) throw new Error(`"${text}" is not a column name (quote it with double quotes)`);
  return text;
}

function value(raw: string): string {
  const text = raw.trim();
  if (text.length >= 2 && text.startsWith("'") && text.endsWith("'")) return text.slice(1, -1).replaceAll("''", "'");
  if (text === '') throw new Error('empty value (quote it with single quotes)');
  return text;
}

/** Splits on `separator` where it is not inside '...' or "..."; empty input gives no parts. */
function splitOutside(text: string, separator: string): string[] {
  if (text.trim() === '') return [];
  const parts: string[] = [];
  let quote: string | undefined;
  let current = '';
  for (const char of text) {
    if (quote) {
      if (char === quote) quote = undefined;
    } else if (char === "'" || char === '"') {
      quote = char;
    } else if (char === separator) {
      parts.push(current);
      current = '';
      continue;
    }
    current += char;
  }
  if (quote) throw new Error(`unclosed ${quote}`);
  parts.push(current);
  return parts;
}
