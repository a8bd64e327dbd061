import type { Argv } from 'yargs';
import { runReadOnlyStatement } from '../../warehouse/warehouse.js';
import type { CommandModule } from '../command.js';
import { FORMATS, type Format, formatResult } from '../format-rows.js';
import { out } from '../output.js';
import { duckdbBudget } from '../../config/duckdb-budget.js';

interface SqlArgs {
  query: string;
  format: Format;
}

export const sqlCommand: CommandModule<SqlArgs> = {
  command: 'sql <query>',
  describe: 'Run one query against the warehouse (read-only) and print the result',
  epilogue: 'Exit status: 0 the query ran, 1 it failed (the error says why), 2 bad usage.',
  builder: (yargs: Argv) =>
    yargs
      .example('$0 sql "select * from marts.match_summary limit 5"', 'a table on the terminal')
      .example('$0 sql "select * from marts.dim_fan" --format csv > fans.csv', 'CSV for a spreadsheet')
      .positional('query', { type: 'string', describe: 'SQL, e.g. "select count(*) from raw.ticketing_tickets"' })
      .option('format', { choices: FORMATS, default: 'table' as Format, describe: 'Output format' }) as unknown as Argv<SqlArgs>,

  async run(args, { config }) {
    const result = await runReadOnlyStatement(config.dataDir, args.query, duckdbBudget(config));
    out.result(formatResult(result, args.format));
    return 0;
  },
};
