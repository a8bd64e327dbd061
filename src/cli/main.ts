import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { SETTINGS, type SettingSpec } from '../config/settings.js';
import { type CommandModule, runHandler, SETTINGS_POINTER } from './command.js';
import { COMMANDS } from './commands/index.js';
import { out } from './output.js';
// `fanlake sql ... | head` closes the pipe early: that ends the output, it is no error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

// What fanlake creates holds fans' personal data or leads to it, so it is readable by its owner
// alone (folders 0700, files 0600) whatever umask started it: DuckDB's files, Parquet written
// by COPY, reports and the club folder included (docs/decisions.md "Files only their owner reads").
process.umask(0o077);

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

/**
 * Every non-secret setting is also a global flag, declared from the settings table. Hidden
 * from each command's help, which would otherwise open with forty settings before its own
 * options: `fanlake help settings` lists them, and the help's last line says so.
 */
function withSettingFlags(argv: Argv): Argv {
  let built = argv.option('config', { type: 'string', describe: 'Config file (default ./fanlake.config.json)', global: true });
  for (const setting of SETTINGS as readonly SettingSpec[]) {
    if (setting.flag) built = built.option(setting.flag, { type: 'string', global: true, hidden: true });
  }
  return built;
}

/**
 * yargs renders a command's whole help text before running its handler, in case the handler
 * asks for it: a noticeable part of every start. fanlake's handlers never ask, and `--help`
 * renders its text afresh, so the copy is skipped (as Angular's CLI does,
 * angular/angular-cli#34087). Through yargs' internals: should they
 * change, the optional calls leave yargs as it is, only slower to start.
 */
function skipEagerHelpText(argv: Argv): void {
  const usage = (argv as unknown as { getInternalMethods?(): { getUsageInstance?(): { cacheHelpMessage?(): void } } }).getInternalMethods?.().getUsageInstance?.();
  if (typeof usage?.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => undefined;
}

/** `help` alone is `--help`, `help COMMAND` is `COMMAND --help`: the same texts; `help settings` stays. */
function helpOfCommand(argv: readonly string[]): string[] {
  if (argv[0] !== 'help') return [...argv];
  const topic = argv.slice(1).find((arg) => !arg.startsWith('-'));
  if (topic === undefined) return ['--help'];
  return topic !== 'help' && Object.hasOwn(COMMANDS, topic) ? [topic, '--help'] : [...argv];
}

const args = helpOfCommand(hideBin(process.argv));
let cli = withSettingFlags(
  yargs(args)
    .scriptName('fanlake')
    // Every message of fanlake is English, yargs' too, whatever the machine's LANG; and the
    // bundled yargs (scripts/build.mjs) has no translations at hand to choose from.
    .locale('en')
    .usage('$0 <command> [options]\n\nLoads a club\'s ticketing and fan-engagement data into a DuckDB warehouse.')
    .epilogue(SETTINGS_POINTER),
);
for (const module of await commandModules(args)) {
  // A command's help shows no global epilogue, so each ends with its own and the pointer.
  const builder = (y: Argv) => module.builder(y).epilogue(module.epilogue ? `${module.epilogue}\n\n${SETTINGS_POINTER}` : SETTINGS_POINTER);
  cli = cli.command(module.command, module.describe, builder, (args) => runHandler(module, args));
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
