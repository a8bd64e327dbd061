import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { SETTINGS, type SettingSpec } from '../config/settings.js';
import { type CommandModule, runHandler } from './command.js';
import { out } from './output.js';
import { buildCommand } from './commands/build.js';
import { checkCommand } from './commands/check.js';
import { extractCommand } from './commands/extract.js';
import { loadCommand } from './commands/load.js';
import { reportCommand } from './commands/report.js';
import { runCommand } from './commands/run.js';
import { scheduleCommand } from './commands/schedule.js';
import { shellCommand } from './commands/shell.js';
import { simulateCommand } from './commands/simulate.js';
import { sqlCommand } from './commands/sql.js';
import { statusCommand } from './commands/status.js';

// `fanlake sql ... | head` closes the pipe early: that ends the output, it is no error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

const COMMANDS: CommandModule<any>[] = [extractCommand, loadCommand, buildCommand, checkCommand, reportCommand, runCommand, sqlCommand, shellCommand, statusCommand, scheduleCommand, simulateCommand];

/** Every non-secret setting is also a global flag, declared from the settings table. */
function withSettingFlags(argv: Argv): Argv {
  let built = argv.option('config', { type: 'string', describe: 'Config file (default ./fanlake.config.json)', global: true });
  for (const setting of SETTINGS as readonly SettingSpec[]) {
    if (!setting.flag) continue;
    const fallback = setting.default === undefined ? '' : ` (default ${String(setting.default)})`;
    built = built.option(setting.flag, { type: 'string', describe: `${setting.description}; env ${setting.env}${fallback}`, global: true, group: 'Settings:' });
  }
  return built;
}

let cli = withSettingFlags(
  yargs(hideBin(process.argv))
    .scriptName('fanlake')
    .usage('$0 <command> [options]\n\nLoads a club\'s ticketing and fan-engagement data into a DuckDB warehouse.')
    .epilogue('Secrets (FANLAKE_TICKETING_TOKEN, FANLAKE_ENGAGEMENT_API_KEY) are read from the environment or .env only.'),
);
for (const module of COMMANDS) {
  cli = cli.command(module.command, module.describe, (y) => module.builder(y), (args) => runHandler(module, args));
}

await cli
  .demandCommand(1, 'Name a command; see fanlake --help')
  .strict()
  .help()
  .alias('h', 'help')
  .version(false)
  .fail((message, error) => {
    if (error) throw error;
    out.error(`${message} (see fanlake --help)`);
    // yargs goes on to the handler after a failed validation; bad usage must run nothing.
    process.exit(2);
  })
  .parseAsync();
