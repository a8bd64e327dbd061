import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { quoteLiteral } from '../core/duckdb.js';
import { UsageError } from '../core/errors.js';
import { parseCsvTable } from './club/csv-table.js';
import { MACRO_SCHEMA } from './discover-project.js';
import type { MacroDefinition } from './discover-project.js';

/** What an analyst decided about two records: one fan, or two. */
export const OVERRIDE_DECISIONS = ['same', 'different'] as const;

/** The file's header row; `note` may be left out. */
export const OVERRIDE_COLUMNS = ['record_a', 'record_b', 'decision', 'note'] as const;

/** File name of the overrides in the club's folder when the setting does not name one. */
export const DEFAULT_OVERRIDES_FILE = 'identity_overrides.csv';

/**
 * Where the overrides are when no setting names a file: in the club's folder, beside its other
 * decisions; a file the previous version kept in the data directory is still read until moved.
 */
export async function defaultOverridesFile(clubDir: string | undefined, dataDir: string): Promise<string> {
  const inClub = clubDir ? join(clubDir, DEFAULT_OVERRIDES_FILE) : undefined;
  const legacy = join(dataDir, DEFAULT_OVERRIDES_FILE);
  const exists = (path: string) => access(path).then(() => true, () => false);
  if (inClub && (await exists(inClub))) return inClub;
  if (await exists(legacy)) return legacy;
  return inClub ?? legacy;
}

/** `system:record_id`, as `int_identity_records.record_key` and the review mart write it. */
const recordKey = z
  .string()
  .regex(
    /^(ticketing_user|ticketing_member|engagement_customer_profile|engagement_person):[^\s:]+$/,
    'must be a record key such as ticketing_user:101 (system ticketing_user, ticketing_member, engagement_customer_profile or engagement_person, a colon, the record id)',
  );

const OverrideRow = z.object({
  record_a: recordKey,
  record_b: recordKey,
  decision: z.enum(OVERRIDE_DECISIONS, { error: `must be ${OVERRIDE_DECISIONS.join(' or ')}` }),
  note: z.string().default(''),
});

/** One settled pair, its keys in order (record_a < record_b), with the line it came from. */
export type IdentityOverride = z.infer<typeof OverrideRow> & { line: number };

/**
 * Reads the overrides file: CSV with the header `record_a,record_b,decision[,note]`, one pair of
 * record keys a line, `#` lines and blank lines ignored, read as the club's other files are
 * (`parseCsvTable`: quoted fields kept exactly, `,` or `;` between fields). A missing file is no
 * decisions, unless `required` (a path the settings named: a typo there should not silently undo
 * every decision).
 *
 * @throws UsageError naming the file and line of the first problem (bad header, field, a record
 *   paired with itself, a pair settled twice).
 */
export async function readIdentityOverrides(path: string, required: boolean): Promise<IdentityOverride[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !required) return [];
    throw new UsageError(`identity overrides file ${path} cannot be read: ${(error as Error).message}`, { file: path });
  }
  return parseIdentityOverrides(text, path);
}

/** Parses the text of an overrides file; `file` names it in errors. */
export function parseIdentityOverrides(text: string, file: string): IdentityOverride[] {
  const rows = parseCsvTable(text, file, { columns: OVERRIDE_COLUMNS, required: 3, row: OverrideRow });
  const settled = new Map<string, number>();
  return rows.map((row) => {
    const fail = (problem: string) => new UsageError(`${file}:${row.line}: ${problem}`, { file, line: row.line });
    if (row.record_a === row.record_b) throw fail(`${row.record_a} is paired with itself`);
    const [first, second] = row.record_a < row.record_b ? [row.record_a, row.record_b] : [row.record_b, row.record_a];
    const pair = `${first} ${second}`;
    const earlier = settled.get(pair);
    if (earlier !== undefined) throw fail(`${first} and ${second} are already settled on line ${earlier}; keep one decision per pair`);
    settled.set(pair, row.line);
    return { ...row, record_a: first, record_b: second };
  });
}

/**
 * The overrides as the table macro `macros.identity_overrides()`, so the models read them as SQL
 * (and a DuckDB shell on the warehouse sees what build applied), and a changed file is a changed
 * macro: the models that call it are rebuilt, like after any macro edit (see build-state.ts).
 */
export function identityOverridesMacro(overrides: readonly IdentityOverride[], file: string): MacroDefinition {
  const columns = 'record_key_a, record_key_b, decision, note, line_number';
  const rows =
    overrides.length === 0
      ? `select * from (values (null::varchar, null::varchar, null::varchar, null::varchar, null::integer)) as overrides(${columns}) limit 0`
      : `select * from (values\n${overrides
          .map((o) => `    (${quoteLiteral(o.record_a)}, ${quoteLiteral(o.record_b)}, ${quoteLiteral(o.decision)}, ${quoteLiteral(o.note)}, ${o.line})`)
          .join(',\n')}\n) as overrides(${columns})`;
  return {
    name: 'identity_overrides',
    file: `identity overrides ${file}`,
    sql: `create or replace macro ${MACRO_SCHEMA}.identity_overrides() as table\n${rows};\n`,
    description: 'Pairs of records analysts settled as the same fan or not (setting FANLAKE_IDENTITY_OVERRIDES).',
  };
}
