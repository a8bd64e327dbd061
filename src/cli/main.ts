import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { SETTINGS, type SettingSpec } from '../config/settings.js';
import { type CommandModule, runHandler } from './command.js';
import { out } from './output.js';
// `fanlake sql ... | head` closes the pipe early: that ends the output, it is no error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

/**
 * Every command by name, loaded on demand: a command's module pulls in its whole engine
 * (reports bring Vega and a browser driver, schedules a mailer), so `fanlake extract`
 * loads only the extractor. About 80 MB and a second of start-up less than loading all.
 */
const COMMANDS: Record<string, () => Promise<CommandModule<any>>> = {
  extract: async () => (await import('./commands/extract.js')).extractCommand,
  load: async () => (await import('./commands/load.js')).loadCommand,
  build: async () => (await import('./commands/build.js')).buildCommand,
  check: async () => (await import('./commands/check.js')).checkCommand,
  report: async () => (await import('./commands/report.js')).reportCommand,
  run: async () => (await import('./commands/run.js')).runCommand,
  sql: async () => (await import('./commands/sql.js')).sqlCommand,
  shell: async () => (await import('./commands/shell.js')).shellCommand,
  status: async () => (await import('./commands/status.js')).statusCommand,
  schedule: async () => (await import('./commands/schedule.js')).scheduleCommand,
  simulate: async () => (await import('./commands/simulate.js')).simulateCommand,
  identity: async () => (await import('./commands/identity.js')).identityCommand,
};

/**
 * The modules to register: only the named command's when the first word is one (flags
 * before it may take values, so anything else, `--help` included, loads every command and
 * yargs decides as before).
 */
async function commandModules(argv: readonly string[]): Promise<CommandModule<any>[]> {
  const first = argv.find((arg) => !arg.startsWith('-'));
  const names = first !== undefined && Object.hasOwn(COMMANDS, first) ? [first] : Object.keys(COMMANDS);
  return Promise.all(names.map((name) => COMMANDS[name]!()));
}

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

/**
 * yargs renders a command's whole help text before running its handler, in case the handler
 * asks for it: 35 ms of every run, most of it laying out the 36 setting flags. fanlake's
 * handlers never ask, and `--help` renders its text afresh, so the copy is skipped (as
 * Angular's CLI does, angular/angular-cli#34087). Through yargs' internals: should they
 * change, the optional calls leave yargs as it is, only slower to start.
 */
function skipEagerHelpText(argv: Argv): void {
  const usage = (argv as unknown as { getInternalMethods?(): { getUsageInstance?(): { cacheHelpMessage?(): void } } }).getInternalMethods?.().getUsageInstance?.();
  if (typeof usage?.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => undefined;
}

let cli = withSettingFlags(
  yargs(hideBin(process.argv))
    .scriptName('fanlake')
    // Every message of fanlake is English, yargs' too, whatever the machine's LANG; and the
    // bundled yargs (scripts/bundle-cli.mjs) has no translations at hand to choose from.
    .locale('en')
    .usage('$0 <command> [options]\n\nLoads a club\'s ticketing and fan-engagement data into a DuckDB warehouse.')
    .epilogue('Secrets (FANLAKE_TICKETING_TOKEN, FANLAKE_ENGAGEMENT_API_KEY) are read from the environment or .env only.'),
);
for (const module of await commandModules(hideBin(process.argv))) {
  cli = cli.command(module.command, module.describe, (y) => module.builder(y), (args) => runHandler(module, args));
}

skipEagerHelpText(cli);
await cli
  .demandCommand(1, 'Name a command')
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
