import { CsvError, parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import * as z from 'zod';
import { UsageError } from '../../core/errors.js';

/** One row of a CSV table, its fields by column name, and the line it starts on. */
export type CsvRow<T> = T & { line: number };

export interface CsvTableSpec<T> {
  /** Columns in header order; those past `required` may be left out of the header. */
  columns: readonly string[];
  /** How many leading columns the header must have. */
  required: number;
  /** Validates one row's fields (a quoted field as written, an unquoted one trimmed) into its typed shape. */
  row: z.ZodType<T>;
  /** The columns that make a row unique; a second row with the same values is an error. */
  key?: readonly (keyof T & string)[];
}

/** The separators a table may use: a comma, or the semicolon a spreadsheet in a Norwegian (or German, French...) locale saves. */
export const CSV_DELIMITERS = [',', ';'] as const;
export type CsvDelimiter = (typeof CSV_DELIMITERS)[number];

/** A field as the reader hands it over: its text, and whether it was quoted (kept exactly) or not (trimmed). */
interface Field {
  text: string;
  quoted: boolean;
}

type Fail = (line: number, problem: string) => UsageError;

/**
 * Reads a small CSV table a person or a spreadsheet wrote (csv-parse, RFC 4180): a header row,
 * then one record each, `#` lines and blank lines ignored, a BOM and CRLF line ends accepted,
 * `,` or `;` between fields (whichever splits the header into the columns). A quoted field is
 * kept exactly (line breaks, quotes as `""`, spaces at its ends); an unquoted one is trimmed,
 * so `a, b` in a hand-edited file reads as `a` and `b`. An empty file is an empty table.
 *
 * @throws UsageError `file:line: problem` for the first bad header, field count, value or
 *   repeated key, `line` being the line its record starts on, so a person can go straight to it.
 */
export function parseCsvTable<T>(text: string, file: string, spec: CsvTableSpec<T>): CsvRow<T>[] {
  const fail: Fail = (line, problem) => new UsageError(`${file}:${line}: ${problem}`, { file, line });
  const records = readRecords(text, csvDelimiter(text, spec), fail);
  const rows: CsvRow<T>[] = [];
  const seen = new Map<string, number>();
  let header: string[] | undefined;
  for (const { line, fields } of records) {
    if (header === undefined) {
      header = fields.map((field) => field.text);
      if (!headerFits(header, spec)) {
        const optional = spec.columns.slice(spec.required);
        throw fail(line, `the header must be ${spec.columns.slice(0, spec.required).join(',')}${optional.length ? ` (then optionally ,${optional.join(',')})` : ''}, not ${header.join(',')}`);
      }
      continue;
    }
    // A row may stop before optional trailing columns (a column added to the header later).
    if (fields.length > header.length || fields.length < Math.min(spec.required, header.length)) {
      throw fail(line, `${fields.length} field(s), the header has ${header.length}; quote a field that holds a comma or a semicolon`);
    }
    const parsed = spec.row.safeParse(Object.fromEntries(header.map((name, at) => [name, fields[at]?.text ?? ''])));
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

/**
 * The separator of a table's text: the one that splits its header line into the spec's columns,
 * a comma when none does (the header error then names what was found) or the text is empty.
 */
export function csvDelimiter(text: string, spec: Pick<CsvTableSpec<unknown>, 'columns' | 'required'>): CsvDelimiter {
  const headerLine = csvHeaderLine(text);
  if (headerLine === undefined) return ',';
  return CSV_DELIMITERS.find((delimiter) => headerFits(headerLine.split(delimiter).map((name) => name.trim().replace(/^"(.*)"$/, '$1')), spec)) ?? ',';
}

/** The header line of a table's text as written: its first line that is not blank or a comment. */
export function csvHeaderLine(text: string): string | undefined {
  return text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .find((line) => line.trim() !== '' && !line.trimStart().startsWith('#'));
}

/** The line ending a table's text uses (that of its first line), so lines added to it match. */
export function csvLineEnd(text: string): '\n' | '\r\n' {
  return /^[^\n]*\r\n/.test(text) ? '\r\n' : '\n';
}

/**
 * CSV lines that `parseCsvTable` reads back exactly, each ending in `lineEnd`: a field is quoted
 * when it holds the separator, a quote, a line break, a space at either end (the reader trims
 * unquoted fields) or starts with `#` (a comment when first on its line).
 */
export function stringifyCsvRows(rows: readonly (readonly CsvValue[])[], delimiter: CsvDelimiter = ',', lineEnd: '\n' | '\r\n' = '\n'): string {
  return stringify(
    rows.map((row) => row.map(fieldText)),
    { delimiter, record_delimiter: lineEnd, quoted_match: [/^\s|\s$/, /^#/, /[\r\n]/], quoted_empty: false, escape_formulas: false },
  );
}

/** A value a CSV field can hold; null and undefined are an empty field. */
export type CsvValue = string | number | boolean | null | undefined;

/** One field as `stringifyCsvRows` writes it in a comma-separated line. */
export function csvField(value: CsvValue): string {
  // the first of two fields, so an empty value is not a blank line; the `,` and line end cut off
  return stringifyCsvRows([[value, '']]).slice(0, -2);
}

function fieldText(value: CsvValue): string {
  return value === null || value === undefined ? '' : String(value);
}

function headerFits(header: readonly string[], spec: Pick<CsvTableSpec<unknown>, 'columns' | 'required'>): boolean {
  return header.length >= spec.required && header.length <= spec.columns.length && header.every((name, at) => name === spec.columns[at]);
}

/** Every record of the text with the line it starts on; comment and blank lines left out. */
function readRecords(text: string, delimiter: CsvDelimiter, fail: Fail): { line: number; fields: Field[] }[] {
  const startLine = recordStarts(text);
  // the byte offset where the last record read ends, so a parse error names the next one's line
  let lastEnd = 0;
  try {
    // with `info` and `cast`, each record is its fields with the parser's position
    const parsed = parse(text, {
      bom: true,
      delimiter,
      record_delimiter: ['\r\n', '\n'],
      comment: '#',
      comment_no_infix: true,
      skip_empty_lines: true,
      relax_column_count: true,
      relax_quotes: true,
      trim: true,
      info: true,
      cast: (value, context): Field => ({ text: value, quoted: context.quoting }),
      on_record: (record, context) => {
        lastEnd = context.bytes;
        return record;
      },
    }) as unknown as { record: Field[]; info: { bytes: number } }[];
    let previousEnd = 0;
    return parsed
      .map(({ record, info }) => {
        const line = startLine(previousEnd);
        previousEnd = info.bytes;
        return { line, fields: record };
      })
      .filter(({ fields }) => !isIndentedComment(fields));
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    throw fail(startLine(lastEnd), problemOf(error));
  }
}

// csv-parse takes `#` as a comment only in a line's first column; a hand-edited file may indent one.
function isIndentedComment(fields: readonly Field[]): boolean {
  return !fields[0]!.quoted && fields[0]!.text.startsWith('#');
}

/**
 * The line a record starts on, from the byte offset where the one before it ended (csv-parse's
 * `info.bytes`): the next line that is not blank or a comment. Counted here rather than by the
 * parser, whose line count takes a CRLF inside a quoted field for two lines.
 */
function recordStarts(text: string): (endOfPrevious: number) => number {
  const bytes = Buffer.from(text, 'utf8');
  const lines = text.split('\n');
  return (endOfPrevious) => {
    let at = 0;
    for (let offset = bytes.indexOf(0x0a); offset !== -1 && offset < endOfPrevious; offset = bytes.indexOf(0x0a, offset + 1)) at++;
    for (; at < lines.length; at++) {
      const line = lines[at]!.replace(/^\uFEFF/, '').trim();
      if (line !== '' && !line.startsWith('#')) return at + 1;
    }
    return lines.length;
  };
}

function problemOf(error: CsvError): string {
  switch (error.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'a quoted field is not closed (a " inside a quoted field is written "")';
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
      return 'text after the closing quote of a field (a " inside a quoted field is written "")';
    default:
      return error.message;
  }
}
