import { createInterface } from 'node:readline/promises';
import type { Argv } from 'yargs';
import { queryRows } from '../../core/duckdb.js';
import { errorMessage } from '../../core/errors.js';
import { withWarehouseReader } from '../../warehouse/warehouse.js';
import type { CommandModule } from '../command.js';
import { out } from '../output.js';
import { formatRows } from './sql.js';

export const shellCommand: CommandModule<object> = {
  command: 'shell',
  describe: 'Open a read-only SQL prompt on the warehouse (end statements with ;, quit with .exit or Ctrl-D)',
  builder: (yargs: Argv) => yargs,

  async run(_args, { config }) {
    return withWarehouseReader(config.dataDir, async (connection) => {
      const prompt = createInterface({ input: process.stdin, output: process.stdout, terminal: Boolean(process.stdin.isTTY) });
      out.info('fanlake shell: schemas raw, staging, intermediate, marts. End statements with ; and quit with .exit');
      let buffer = '';
      prompt.setPrompt('fanlake> ');
      prompt.prompt();
      for await (const line of prompt) {
        if (buffer === '' && line.trim() === '.exit') break;
        buffer += `${line}\n`;
        if (line.trim().endsWith(';')) {
          try {
            out.result(formatRows(await queryRows(connection, buffer), 'table'));
          } catch (error) {
            out.error(errorMessage(error));
          }
          buffer = '';
        }
        prompt.setPrompt(buffer ? '     ...> ' : 'fanlake> ');
        prompt.prompt();
      }
      prompt.close();
      return 0 as const;
    });
  },
};
