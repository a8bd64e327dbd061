/**
 * How a raw table's columns follow its Parquet files: a new column is added, a column the
 * files no longer have stays (NULL in new rows), and a type that changed is widened so no
 * value is refused. Pure planning here, shared by load (`load/merge-table.ts` runs the DDL) and
 * extract (a snapshot is written as a difference only while the table's columns would not change).
 */

/** Column name → DuckDB type, in column order. Names compare case-insensitively, as in DuckDB. */
export type ColumnTypes = ReadonlyMap<string, string>;

export interface SchemaPlan {
  /** The table's columns after the load, existing spellings kept. */
  target: Map<string, string>;
  /** Columns to add, with their type. */
  added: Array<{ name: string; type: string }>;
  /** Existing columns whose type must widen. */
  widened: Array<{ name: string; from: string; to: string }>;
}

// Signed integers by width; an unsigned type sits with the next wider signed one that holds it.
const INTEGER_RANK: Record<string, number> = {
  TINYINT: 1,
  UTINYINT: 2,
  SMALLINT: 2,
  USMALLINT: 3,
  INTEGER: 3,
  UINTEGER: 4,
  BIGINT: 4,
  UBIGINT: 5,
  HUGEINT: 5,
};
const SIGNED_BY_RANK = ['', 'TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT'];

function isInteger(type: string): boolean {
  return type in INTEGER_RANK;
}

function isNumeric(type: string): boolean {
  return isInteger(type) || type === 'FLOAT' || type === 'DOUBLE' || type.startsWith('DECIMAL');
}

/**
 * The narrowest type that holds values of both: wider integers, integer with fraction →
 * DOUBLE, JSON absorbs numbers and booleans (they are JSON values), anything else → VARCHAR.
 *
 * @example widenType('BIGINT', 'DOUBLE') // 'DOUBLE'
 * @example widenType('BIGINT', 'BOOLEAN') // 'VARCHAR'
 */
export function widenType(a: string, b: string): string {
  const left = a.toUpperCase();
  const right = b.toUpperCase();
  if (left === right) return a;
  if (isInteger(left) && isInteger(right)) {
    return SIGNED_BY_RANK[Math.max(INTEGER_RANK[left], INTEGER_RANK[right])];
  }
  if (isNumeric(left) && isNumeric(right)) return 'DOUBLE';
  const scalar = (type: string) => isNumeric(type) || type === 'BOOLEAN';
  if ((left === 'JSON' && scalar(right)) || (right === 'JSON' && scalar(left))) return 'JSON';
  return 'VARCHAR';
}

/**
 * Plans the table's columns from what it has (`existing`, undefined when the table does not
 * exist yet) and the schemas of the files about to be loaded.
 */
export function planSchema(existing: ColumnTypes | undefined, incoming: readonly ColumnTypes[]): SchemaPlan {
  const target = new Map<string, string>();
  const spelling = new Map<string, string>();
  const original = new Map<string, string>();
  for (const [name, type] of existing ?? []) {
    target.set(name, type);
    spelling.set(name.toLowerCase(), name);
    original.set(name, type);
  }
  const added: SchemaPlan['added'] = [];
  for (const schema of incoming) {
    for (const [incomingName, type] of schema) {
      const name = spelling.get(incomingName.toLowerCase());
      if (name === undefined) {
        target.set(incomingName, type);
        spelling.set(incomingName.toLowerCase(), incomingName);
        if (existing !== undefined) added.push({ name: incomingName, type });
      } else {
        target.set(name, widenType(target.get(name)!, type));
      }
    }
  }
  for (const column of added) column.type = target.get(column.name)!;
  const widened: SchemaPlan['widened'] = [];
  for (const [name, from] of original) {
    const to = target.get(name)!;
    if (to !== from) widened.push({ name, from, to });
  }
  return { target, added, widened };
}

/** One line per change, as load results report them. */
export function describeDrift(plan: SchemaPlan): string[] {
  return [
    ...plan.added.map((column) => `added column ${column.name} ${column.type}`),
    ...plan.widened.map((column) => `widened column ${column.name} from ${column.from} to ${column.to}`),
  ];
}
