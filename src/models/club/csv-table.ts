import * as z from 'zod';
import { UsageError } from '../../core/errors.js';

/** One row of a CSV table, its fields by column name, and the line it was read from. */
export type CsvRow<T> = T & { line: number };

export interface CsvTableSpec<T> {
  /** Columns in header order; those past `required` may be left out of the header. */
  columns: readonly string[];
  /** How many leading columns the header must have. */
  required: number;
  /** Validates one row's fields (trimmed text) into its typed shape. */
  row: z.ZodType<T>;
  /** The columns that make a row unique; a second row with the same values is an error. */
  key?: readonly (keyof T & string)[];
}

/**
 * Reads a small CSV table written by hand: a header row, one record a line (RFC 4180 quoting,
 * `""` for a quote, no line breaks inside a field), `#` lines and blank lines ignored. An empty
 * file is an empty table.
 *
 * @throws UsageError `file:line: problem` for the first bad header, field count, value or
 *   repeated key, so a person can go straight to the line.
 */
export function parseCsvTable<T>(text: string, file: string, spec: CsvTableSpec<T>): CsvRow<T>[] {
  const fail = (line: number, problem: string) => new UsageError(`${file}:${line}: ${problem}`, { file, line });
  const rows: CsvRow<T>[] = [];
  const seen = new Map<string, number>();
  let header: string[] | undefined;
  for (const [index, raw] of text.replace(/^\uFEFF/, '').split(/\r?\n/).entries()) {
    const line = index + 1;
    if (raw.trim() === '' || raw.trimStart().startsWith('#')) continue;
    const fields = splitCsvLine(raw);
    if (typeof fields === 'string') throw fail(line, fields);
    if (header === undefined) {
      header = fields.map((field) => field.trim());
      const expected = spec.columns.slice(0, header.length);
      if (header.length < spec.required || header.length > spec.columns.length || header.some((name, at) => name !== expected[at])) {
        const optional = spec.columns.slice(spec.required);
        throw fail(line, `the header must be ${spec.columns.slice(0, spec.required).join(',')}${optional.length ? ` (then optionally ,${optional.join(',')})` : ''}, not ${raw.trim()}`);
      }
      continue;
    }
    // A row may stop before optional trailing columns (a column added to the header later).
    if (fields.length > header.length || fields.length < Math.min(spec.required, header.length)) {
      throw fail(line, `${fields.length} field(s), the header has ${header.length}; quote a field that holds a comma`);
    }
    const parsed = spec.row.safeParse(Object.fromEntries(header.map((name, at) => [name, (fields[at] ?? '').trim()])));
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw fail(line, `${issue.path.join('.')}${issue.path.length ? ' ' : ''}${issue.message}`);
    }
    if (spec.key) {
      const key = JSON.stringify(spec.key.map((column) => parsed.data[column]));
      const earlier = seen.get(key);
      if (earlier !== undefined) throw fail(line, `${spec.key.join(', ')} repeat line ${earlier}; keep one row each`);
      seen.set(key, line);
    }
    rows.push({ ...parsed.data, line });
  }
  return rows;
}

/** Fields of one CSV line (RFC 4180 quoting, `""` for a quote); a string is the problem. */
function splitCsvLine(line: string): string[] | string {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let at = 0; at < line.length; at++) {
    const char = line[at]!;
    if (quoted) {
      if (char === '"' && line[at + 1] === '"') {
        field += '"';
        at++;
      } else if (char === '"') {
        quoted = false;
      } else {
        field += char;
      }
    } else if (char === '"' && field.trim() === '') {
      quoted = true;
      field = '';
    } else if (char === ',') {
      fields.push(field);
      field = '';
    } else {
      field += char;
    }
  }
  if (quoted) return 'a quoted field is not closed';
  fields.push(field);
  return fields;
}

/** A field as CSV writes it: quoted when it holds a comma, a quote or spaces at its ends. */
export function csvField(value: string | number | boolean | null | undefined): string {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
