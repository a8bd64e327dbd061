import type { Argv } from 'yargs';
import { errorMessage, UsageError } from '../../core/errors.js';
import { queryRows } from '../../core/duckdb.js';
import { withWarehouseReader } from '../../warehouse/warehouse.js';
import type { CommandModule } from '../command.js';
import { out, table } from '../output.js';

const FORMATS = ['table', 'csv', 'json'] as const;
type Format = (typeof FORMATS)[number];

interface SqlArgs {
  query: string;
  format: Format;
}

export const sqlCommand: CommandModule<SqlArgs> = {
  command: 'sql <query>',
  describe: 'Run one query against the warehouse (read-only) and print the result',
  builder: (yargs: Argv) =>
    yargs
      .example('$0 sql "select * from marts.match_summary limit 5"', 'a table on the terminal')
      .example('$0 sql "select * from marts.dim_fan" --format csv > fans.csv', 'CSV for a spreadsheet')
      .positional('query', { type: 'string', describe: 'SQL, e.g. "select count(*) from raw.ticketing_tickets"' })
      .option('format', { choices: FORMATS, default: 'table' as Format, describe: 'Output format' }) as unknown as Argv<SqlArgs>,

  async run(args, { config }) {
    const rows = await withWarehouseReader(config.dataDir, async (connection) => {
      try {
        return await queryRows(connection, args.query);
      } catch (error) {
        throw new UsageError(`query failed: ${errorMessage(error)}`);
      }
    });
    out.result(formatRows(rows, args.format));
    return 0;
  },
};

export function formatRows(rows: Record<string, unknown>[], format: Format): string {
  if (format === 'json') return JSON.stringify(rows, null, 2);
  const headers = rows.length > 0 ? Object.keys(rows[0]!) : [];
  const cell = (value: unknown) => (value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value));
  if (format === 'csv') {
    const quote = (text: string) => (/[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
    return [headers.map(quote).join(','), ...rows.map((row) => headers.map((h) => quote(cell(row[h]))).join(','))].join('\n');
  }
  if (rows.length === 0) return '(no rows)';
  return `${table(headers, rows.map((row) => headers.map((h) => cell(row[h]))))}\n(${rows.length} rows)`;
}
