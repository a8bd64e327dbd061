import { z } from 'zod';

/**
 * A resource's fields are declared once, as kinds; the zod schema that validates items
 * at the edge and the DuckDB column types of the raw Parquet files both derive from
 * that declaration, so they cannot drift apart.
 *
 * Raw keeps values as the API sent them, so the kinds describe JSON types, not
 * meanings: a timestamp is a `string` here and becomes a TIMESTAMP in staging.
 */
export const FIELD_KINDS = {
  /** JSON integer. */
  int: { duckdb: 'BIGINT', schema: z.number().int() },
  /** JSON number. */
  float: { duckdb: 'DOUBLE', schema: z.number() },
  /** JSON boolean. */
  bool: { duckdb: 'BOOLEAN', schema: z.boolean() },
  /** JSON string. */
  string: { duckdb: 'VARCHAR', schema: z.string() },
  /**
   * An id the documents type as a number but samples send as a string (or the reverse).
   * Kept as text in raw so both forms compare; staging casts. A number is written as its
   * decimal text, the only rewrite raw ever does (see docs/decisions.md).
   */
  id: { duckdb: 'VARCHAR', schema: z.union([z.string(), z.number().int()]) },
  /**
   * A scalar documented as one type but sent as another (for example a boolean
   * "serialized as a string in samples"): kept as text, cast in staging.
   */
  text: { duckdb: 'VARCHAR', schema: z.union([z.string(), z.number(), z.boolean()]) },
  /** Any JSON value (objects, arrays): kept nested, as JSON. */
  json: { duckdb: 'JSON', schema: z.unknown() },
} as const;

export type FieldKind = keyof typeof FIELD_KINDS;

/** Field name → kind. Every field may be null or absent except the primary key. */
export type FieldDeclarations = Readonly<Record<string, FieldKind>>;

/** Column name → DuckDB type, in declaration order. */
export function duckdbColumns(fields: FieldDeclarations): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).map(([name, kind]) => [name, FIELD_KINDS[kind].duckdb]));
}

/**
 * The item schema: declared fields are type-checked (null or absent allowed), primary
 * key fields are required and non-null, unknown fields pass through untouched.
 */
export function itemSchema(fields: FieldDeclarations, primaryKey: readonly string[]): z.ZodType<Record<string, unknown>> {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, kind] of Object.entries(fields)) {
    const base = FIELD_KINDS[kind].schema;
    shape[name] = primaryKey.includes(name) ? base : base.nullish();
  }
  for (const key of primaryKey) {
    if (!(key in shape)) throw new Error(`primary key ${key} is not a declared field`);
  }
  return z.looseObject(shape) as unknown as z.ZodType<Record<string, unknown>>;
}
