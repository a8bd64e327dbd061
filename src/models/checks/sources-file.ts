import * as z from 'zod';
import type { DeclaredTest } from '../model-header.js';
import { parseTestDeclaration, SEVERITIES } from './test-declaration.js';

/** File under the models root that declares tests on `raw.*` tables. */
export const SOURCES_FILE = 'sources.json';

/**
 * `sql/sources.json`: data tests on the raw tables the models read. Keys are raw relations;
 * tests use the same one-line grammar as model headers; freshness compares `max(field)` with
 * the time `check` runs (the field may be a timestamp or ISO text). For `_extracted_at` it
 * takes the newer of that and the table's last complete read from the source (checks/last-read.ts):
 * a table read every hour whose records have not changed for days is fresh. Any other field is
 * a business signal ("no ticket sold for N days") and keeps the newest value.
 *
 * ```json
 * {
 *   "raw.ticketing_tickets": {
 *     "description": "Tickets as the ticketing export sends them",
 *     "tests": ["unique(id)", "not_null(id)", { "test": "not_null(id_user)", "severity": "warn" }],
 *     "freshness": { "field": "_extracted_at", "warn_after_hours": 24, "error_after_hours": 72 }
 *   }
 * }
 * ```
 */
export interface Freshness {
  field: string;
  warnAfterHours?: number;
  errorAfterHours?: number;
}

export interface SourceDefinition {
  /** `raw.<table>` */
  relation: string;
  description?: string;
  tests: DeclaredTest[];
  freshness?: Freshness;
  /**
   * Extracted only on request (an opt-in fan-out such as loyalty summaries): when it is not
   * loaded, models reading it and their descendants are skipped, not failed, and so are
   * their tests.
   */
  optional: boolean;
}

const hours = z.number().positive('must be a positive number of hours');

const sourceSchema = z.strictObject({
  description: z.string().optional(),
  optional: z.boolean().default(false),
  tests: z.array(z.union([z.string(), z.strictObject({ test: z.string(), severity: z.enum(SEVERITIES).default('error') })])).default([]),
  freshness: z
    .strictObject({ field: z.string().min(1), warn_after_hours: hours.optional(), error_after_hours: hours.optional() })
    .refine((f) => f.warn_after_hours !== undefined || f.error_after_hours !== undefined, 'give warn_after_hours, error_after_hours or both')
    .optional(),
});

const sourcesSchema = z.record(z.string(), sourceSchema).superRefine((sources, context) => {
  for (const key of Object.keys(sources)) {
    if (!/^raw\.[A-Za-z0-9_]+$/.test(key)) context.addIssue({ code: 'custom', path: [key], message: 'keys are raw relations such as "raw.ticketing_tickets"' });
  }
});

/** Parses the file's text; problems name the file and the JSON path. */
export function parseSourcesFile(text: string, file: string): { sources: SourceDefinition[]; problems: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { sources: [], problems: [`${file}: not valid JSON (${(error as Error).message})`] };
  }
  const parsed = sourcesSchema.safeParse(json);
  if (!parsed.success) {
    return { sources: [], problems: parsed.error.issues.map((issue) => `${file}: ${issue.path.join('.') || '(top)'}: ${issue.message}`) };
  }
  const problems: string[] = [];
  const sources = Object.entries(parsed.data).map(([relation, spec]): SourceDefinition => {
    const tests: DeclaredTest[] = [];
    for (const entry of spec.tests) {
      const [text, severity] = typeof entry === 'string' ? [entry, 'error' as const] : [entry.test, entry.severity];
      const declaration = parseTestDeclaration(text);
      if (declaration.ok) tests.push({ declaration: declaration.declaration, severity });
      else problems.push(`${file}: ${relation}: ${declaration.problem}`);
    }
    const freshness = spec.freshness && {
      field: spec.freshness.field,
      warnAfterHours: spec.freshness.warn_after_hours,
      errorAfterHours: spec.freshness.error_after_hours,
    };
    return { relation, description: spec.description, tests, freshness, optional: spec.optional };
  });
  return { sources, problems };
}
