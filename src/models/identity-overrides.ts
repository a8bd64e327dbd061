import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { quoteLiteral } from '../core/duckdb.js';
import { UsageError } from '../core/errors.js';
import { readCsvRows } from './csv-lines.js';
import { MACRO_SCHEMA } from './discover-project.js';
import type { MacroDefinition } from './discover-project.js';

/** What an analyst decided about two records: one fan, or two. */
export const OVERRIDE_DECISIONS = ['same', 'different'] as const;

/** The file's header row; `note` may be left out. */
export const OVERRIDE_COLUMNS = ['record_a', 'record_b', 'decision', 'note'] as const;

/** File name of the overrides in the data directory when the setting does not name one. */
export const DEFAULT_OVERRIDES_FILE = 'identity_overrides.csv';

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
 * record keys a line, `#` lines and blank lines ignored, fields quoted with `"` when they hold a
 * comma. A missing file is no decisions, unless `required` (a path the settings named: a typo
 * there should not silently undo every decision).
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
  const fail = (line: number, problem: string) => new UsageError(`${file}:${line}: ${problem}`, { file, line });
  const { header, headerLine, rows } = readCsvRows(text, fail);
  const expected = OVERRIDE_COLUMNS.slice(0, header.length);
  if (header.length === 0 && rows.length === 0) return [];
  if (header.length < 3 || header.some((name, at) => name !== expected[at])) {
    throw fail(headerLine, `the header must be ${OVERRIDE_COLUMNS.slice(0, 3).join(',')} (and optionally ,note), not ${header.join(',')}`);
  }
  const overrides: IdentityOverride[] = [];
  const settled = new Map<string, number>();
  for (const { line, fields } of rows) {
    const parsed = OverrideRow.safeParse(fields);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw fail(line, `${issue.path.join('.')} ${issue.message}`);
    }
    const { record_a, record_b } = parsed.data;
    if (record_a === record_b) throw fail(line, `${record_a} is paired with itself`);
    const [first, second] = record_a < record_b ? [record_a, record_b] : [record_b, record_a];
    const pair = `${first} ${second}`;
    const earlier = settled.get(pair);
    if (earlier !== undefined) throw fail(line, `${first} and ${second} are already settled on line ${earlier}; keep one decision per pair`);
    settled.set(pair, line);
    overrides.push({ ...parsed.data, record_a: first, record_b: second, line });
  }
  return overrides;
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
