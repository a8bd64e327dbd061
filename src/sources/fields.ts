import { z } from 'zod';

/**
 * A resource's fields are declared once, as kinds; the zod schema that validates items
 * at the edge and the DuckDB column types of the raw Parquet files both derive from
 * that declaration, so they cannot drift apart. Each kind's `accepts` mirrors its zod
 * schema as a fast path for the millions of valid items (see `itemValidator`); zod stays
 * the authority and gives the quarantine reason.
 *
 * Raw keeps values as the API sent them, so the kinds describe JSON types, not
 * meanings: a timestamp is a `string` here and becomes a TIMESTAMP in staging.
 */
export const FIELD_KINDS = {
  /** JSON integer. */
  int: { duckdb: 'BIGINT', schema: z.number().int(), accepts: (v: unknown) => Number.isInteger(v) },
  /** JSON number. */
  float: { duckdb: 'DOUBLE', schema: z.number(), accepts: (v: unknown) => typeof v === 'number' && Number.isFinite(v) },
  /** JSON boolean. */
  bool: { duckdb: 'BOOLEAN', schema: z.boolean(), accepts: (v: unknown) => typeof v === 'boolean' },
  /** JSON string. */
  string: { duckdb: 'VARCHAR', schema: z.string(), accepts: (v: unknown) => typeof v === 'string' },
  /**
   * An id the documents type as a number but samples send as a string (or the reverse).
   * Kept as text in raw so both forms compare; staging casts. A number is written as its
   * decimal text, the only rewrite raw ever does (see docs/decisions.md).
   */
  id: { duckdb: 'VARCHAR', schema: z.union([z.string(), z.number().int()]), accepts: (v: unknown) => typeof v === 'string' || Number.isInteger(v) },
  /**
   * A scalar documented as one type but sent as another (for example a boolean
   * "serialized as a string in samples"): kept as text, cast in staging.
   */
  text: {
    duckdb: 'VARCHAR',
    schema: z.union([z.string(), z.number(), z.boolean()]),
    accepts: (v: unknown) => typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)),
  },
  /** Any JSON value (objects, arrays): kept nested, as JSON. */
  json: { duckdb: 'JSON', schema: z.unknown(), accepts: () => true },
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

export type ItemVerdict = { ok: true } | { ok: false; reason: string };

/**
 * Validates items against their declaration: a plain loop over the declared fields for
 * the common case, the zod schema for the reason when that loop finds a problem. Costs a
 * few hundred nanoseconds per valid item instead of a zod parse that copies the object.
 */
export function itemValidator(fields: FieldDeclarations, primaryKey: readonly string[]): (item: unknown) => ItemVerdict {
  const schema = itemSchema(fields, primaryKey);
  const checks = Object.entries(fields).map(([name, kind]) => [name, FIELD_KINDS[kind].accepts, primaryKey.includes(name)] as const);
  return (item) => {
    let ok = typeof item === 'object' && item !== null && !Array.isArray(item);
    if (ok) {
      const record = item as Record<string, unknown>;
      for (const [name, accepts, required] of checks) {
        const value = record[name];
        if (value === undefined || value === null ? required : !accepts(value)) {
          ok = false;
          break;
        }
      }
    }
    if (ok) return { ok: true };
    const parsed = schema.safeParse(item);
    if (parsed.success) return { ok: true };
    const reason = parsed.error.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.join('.') || '(item)'}: ${issue.message}`)
      .join('; ');
    return { ok: false, reason };
  };
}
