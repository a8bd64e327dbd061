import * as z from 'zod';

/**
 * A resource's fields are declared once, as kinds; the zod schema that validates items
 * at the edge and the DuckDB column types of the raw Parquet files both derive from
 * that declaration, so they cannot drift apart. Each kind's `check` (a JavaScript expression
 * over the value `v`) mirrors its zod schema as a fast path for the millions of valid items
 * (see `itemValidator`); zod stays the authority and gives the quarantine reason.
 *
 * Raw keeps values as the API sent them, so the kinds describe JSON types, not
 * meanings: a timestamp is a `string` here and becomes a TIMESTAMP in staging.
 */
export const FIELD_KINDS = {
  /** JSON integer. */
  int: { duckdb: 'BIGINT', schema: z.number().int(), check: 'Number.isInteger(v)' },
  /** JSON number. */
  float: { duckdb: 'DOUBLE', schema: z.number(), check: "typeof v === 'number' && Number.isFinite(v)" },
  /** JSON boolean. */
  bool: { duckdb: 'BOOLEAN', schema: z.boolean(), check: "typeof v === 'boolean'" },
  /** JSON string. */
  string: { duckdb: 'VARCHAR', schema: z.string(), check: "typeof v === 'string'" },
  /**
   * An id the documents type as a number but samples send as a string (or the reverse).
   * Kept as text in raw so both forms compare; staging casts. A number is written as its
   * decimal text, the only rewrite raw ever does (see docs/decisions.md).
   */
  id: { duckdb: 'VARCHAR', schema: z.union([z.string(), z.number().int()]), check: "typeof v === 'string' || Number.isInteger(v)" },
  /**
   * A scalar documented as one type but sent as another (for example a boolean
   * "serialized as a string in samples"): kept as text, cast in staging.
   */
  text: {
    duckdb: 'VARCHAR',
    schema: z.union([z.string(), z.number(), z.boolean()]),
    check: "typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))",
  },
  /** Any JSON value (objects, arrays): kept nested, as JSON. */
  json: { duckdb: 'JSON', schema: z.unknown(), check: 'true' },
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

const VALID: ItemVerdict = Object.freeze({ ok: true });

/**
 * Validates items against their declaration: a check compiled for the declared fields for
 * the common case, the zod schema for the reason when that check finds a problem. Costs well
 * under a microsecond per valid item instead of a zod parse that copies the object.
 */
export function itemValidator(fields: FieldDeclarations, primaryKey: readonly string[]): (item: unknown) => ItemVerdict {
  const schema = itemSchema(fields, primaryKey);
  const fits = compileFieldCheck(fields, primaryKey);
  return (item) => {
    if (typeof item === 'object' && item !== null && !Array.isArray(item) && fits(item)) return VALID;
    const parsed = schema.safeParse(item);
    if (parsed.success) return VALID;
    const reason = parsed.error.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.join('.') || '(item)'}: ${issue.message}`)
      .join('; ');
    return { ok: false, reason };
  };
}

/**
 * One function that reads every declared field by its literal name. Records of one API
 * share a shape, so each read is a monomorphic property load; the same loop over the field
 * names (`record[name]` with `name` varying, a call per kind) is several times slower, which
 * for wide tickets shows in the extract's main thread.
 */
function compileFieldCheck(fields: FieldDeclarations, primaryKey: readonly string[]): (item: object) => boolean {
  const lines = Object.entries(fields).map(([name, kind]) => {
    const absent = primaryKey.includes(name) ? 'return false;' : '';
    // JSON.stringify quotes any name as a valid string literal.
    return `v = r[${JSON.stringify(name)}]; if (v === undefined || v === null) { ${absent} } else if (!(${FIELD_KINDS[kind].check})) return false;`;
  });
  return new Function('r', `let v;\n${lines.join('\n')}\nreturn true;`) as (item: object) => boolean;
}
