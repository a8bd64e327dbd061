import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Argv } from 'yargs';
import { FanlakeError } from '../../core/errors.js';
import { warehousePath } from '../../raw-contract/index.js';
import { WAREHOUSE_ERROR_CODES } from '../../warehouse/warehouse.js';
import type { CommandModule } from '../command.js';
import { out } from '../output.js';
import { ShellSession } from '../shell/shell-session.js';
import { duckdbBudget } from '../../config/duckdb-budget.js';

/** In the user's home, not the data directory: the shell never writes there. */
const HISTORY_FILE = '.fanlake_history';
const HISTORY_SIZE = 1000;

export const shellCommand: CommandModule<object> = {
  command: 'shell',
  describe: 'Open a read-only SQL prompt on the warehouse, like the DuckDB CLI (.help inside lists its commands)',
  epilogue: 'Each statement opens the warehouse read-only for itself, so loads and builds never wait for a shell left open.',
  builder: (yargs: Argv) =>
    yargs
      .example('$0 shell', 'a prompt; statements end with ;, .tables lists tables, .exit or Ctrl-D leaves')
      .example('$0 shell < queries.sql', 'runs a file: errors name their line, exit 1 when any statement failed'),

  async run(_args, { config }) {
    const path = warehousePath(config.dataDir);
    if (!existsSync(path)) throw new FanlakeError(WAREHOUSE_ERROR_CODES.missing, `no warehouse at ${path} yet: run fanlake extract and fanlake load first`);
    const interactive = Boolean(process.stdin.isTTY);
    const session = new ShellSession(config.dataDir, { result: out.result, error: out.error }, !interactive, duckdbBudget(config));
    const historyPath = join(homedir(), HISTORY_FILE);
    const prompt = createInterface({
      input: process.stdin,
      output: process.stdout,
      terminal: interactive,
      history: interactive ? readHistory(historyPath) : [],
      historySize: HISTORY_SIZE,
      removeHistoryDuplicates: true,
    });
    const showPrompt = () => {
      if (!interactive) return;
      prompt.setPrompt(session.pending ? '     ...> ' : 'fanlake> ');
      prompt.prompt();
    };
    prompt.on('SIGINT', () => {
      if (session.interrupt() === 'cleared') {
        process.stdout.write('^C\n');
        showPrompt();
      }
    });
    if (interactive) out.info(`fanlake shell on ${path} (read-only). End statements with ;  .help lists commands, .exit leaves.`);
    showPrompt();
    let lineNumber = 0;
    for await (const line of prompt) {
      lineNumber += 1;
      if (interactive && line.trim() !== '') appendHistory(historyPath, line);
      if ((await session.feedLine(line, { line: lineNumber })) === 'exit') break;
      showPrompt();
    }
    prompt.close();
    session.finish();
    return !interactive && session.failures > 0 ? 1 : 0;
  },
};

/** Newest first, as readline wants it. */
function readHistory(path: string): string[] {
  try {
    return readFileSync(path, 'utf8').split('\n').filter(Boolean).reverse().slice(0, HISTORY_SIZE);
  } catch {
    return [];
  }
}

function appendHistory(path: string, line: string): void {
  try {
    appendFileSync(path, `${line.replace(/\n/g, ' ')}\n`, { mode: 0o600 });
  } catch {
    // A read-only home must not stop the shell; history is a convenience.
  }
}
