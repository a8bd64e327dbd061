/** One data line of a small hand-edited CSV file: its line number and its fields by header name. */
export interface CsvRow {
  line: number;
  fields: Record<string, string>;
}

/**
 * The data lines of a hand-edited CSV file (RFC 4180 quoting, `""` for a quote), each with its
 * line number, its fields trimmed and named by the header; `#` lines and blank lines are
 * ignored. `fail(line, problem)` makes the error for a line the file cannot be read at (a
 * field count other than the header's, an unclosed quote); the header itself is the caller's
 * to check (`header`).
 */
export function readCsvRows(text: string, fail: (line: number, problem: string) => Error): { header: string[]; headerLine: number; rows: CsvRow[] } {
  let header: string[] | undefined;
  let headerLine = 0;
  const rows: CsvRow[] = [];
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = index + 1;
    if (raw.trim() === '' || raw.trimStart().startsWith('#')) continue;
    const fields = splitCsvLine(raw);
    if (typeof fields === 'string') throw fail(line, fields);
    if (header === undefined) {
      header = fields.map((field) => field.trim());
      headerLine = line;
      continue;
    }
    if (fields.length !== header.length) throw fail(line, `${fields.length} field(s), the header has ${header.length}; quote a field that holds a comma`);
    rows.push({ line, fields: Object.fromEntries(header.map((name, at) => [name, fields[at]!.trim()])) });
  }
  return { header: header ?? [], headerLine, rows };
}

/** Fields of one CSV line (RFC 4180 quoting, `""` for a quote); a string is the problem. */
export function splitCsvLine(line: string): string[] | string {
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
