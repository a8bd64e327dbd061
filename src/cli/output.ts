import { redact } from '../core/secrets.js';

/**
 * Everything the CLI says goes through here: results to stdout, progress and
 * diagnostics to stderr, both with known secrets masked.
 */
export const out = {
  result(text: string): void {
    process.stdout.write(redact(text) + '\n');
  },
  info(text: string): void {
    process.stderr.write(redact(text) + '\n');
  },
  warn(text: string): void {
    process.stderr.write(redact(`warning: ${text}`) + '\n');
  },
  error(text: string): void {
    process.stderr.write(redact(`error: ${text}`) + '\n');
  },
};

/** A plain aligned text table (no colours, so it reads the same in logs). */
export function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((row) => row.map(String))];
  const widths = headers.map((_, c) => Math.max(...cells.map((row) => (row[c] ?? '').length)));
  const line = (row: string[]) => row.map((cell, c) => (typeof rows[0]?.[c] === 'number' ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join('  ').trimEnd();
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}
