import type { Json } from '@duckdb/node-api';
import { table } from './output.js';

/** Output formats of `sql --format` and the shell's `.mode`. */
export const FORMATS = ['table', 'csv', 'json', 'markdown', 'line'] as const;
export type Format = (typeof FORMATS)[number];

/** A query's result: its columns in order (known even with no rows) and its rows. */
export interface ResultSet {
  columns: string[];
  rows: Json[][];
}

/** Renders a result in one of {@link FORMATS}; no trailing newline. */
export function formatResult(result: ResultSet, format: Format): string {
  const { columns, rows } = result;
  switch (format) {
    case 'json':
      return JSON.stringify(rows.map((row) => Object.fromEntries(columns.map((column, c) => [column, row[c] ?? null]))), null, 2);
    case 'csv': {
      const quote = (text: string) => (/[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
      return [columns.map(quote).join(','), ...rows.map((row) => row.map((value) => quote(cell(value))).join(','))].join('\n');
    }
    case 'markdown': {
      const escape = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
      return [`| ${columns.map(escape).join(' | ')} |`, `|${columns.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.map((value) => escape(cell(value))).join(' | ')} |`)].join('\n');
    }
    case 'line': {
      const width = Math.max(0, ...columns.map((column) => column.length));
      return rows.map((row) => columns.map((column, c) => `${column.padStart(width)} = ${cell(row[c] ?? null)}`).join('\n')).join('\n\n');
    }
    case 'table':
      if (rows.length === 0) return columns.length > 0 ? `${table(columns, [])}\n(no rows)` : '(no rows)';
      return `${table(columns, rows.map((row) => row.map(cell)))}\n(${rows.length} ${rows.length === 1 ? 'row' : 'rows'})`;
  }
}

function cell(value: Json): string {
  return value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
}
