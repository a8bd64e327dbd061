import { hostname } from 'node:os';
import type { Argv } from 'yargs';
import { type LoadedConfig, loadConfig } from '../config/load-config.js';
import { configureBusyWait } from '../core/duckdb.js';
import { errorMessage, exitCodeFor } from '../core/errors.js';
import { acquireWriterLock, currentHolder, describeHolder, releaseIfOursSync, type WriterLock } from '../core/writer-lock.js';
import { out } from './output.js';

/** Exit statuses (docs/interface.md): 0 success, 1 failed or partial run, 2 bad usage. */
export type ExitCode = 0 | 1 | 2;

/** The last line of every command's help: where the settings, hidden from it, are explained. */
export const SETTINGS_POINTER = 'Settings (flags, FANLAKE_* variables, config keys): fanlake help settings';

interface CommandBase<A> {
  readonly command: string;
  readonly describe: string;
  /**
   * True for a command that writes under `$FANLAKE_DATA_DIR`: `runHandler` then holds the
   * data directory's one writer lock for the whole run (see `src/core/writer-lock.ts`).
   */
  readonly writes?: boolean | ((args: A) => boolean);
  /** Text after the options and examples of its help, before the settings pointer. */
  readonly epilogue?: string;
  builder(yargs: Argv): Argv<A>;
}

/**
 * A command. `run` returns the exit code; errors are mapped by `runHandler`. A `configless`
 * command (`help`) runs without loading the configuration, since it must work when the
 * configuration is what is wrong.
 */
export type CommandModule<A> =
  | (CommandBase<A> & { readonly configless?: false; run(args: A, config: LoadedConfig): Promise<ExitCode> })
  | (CommandBase<A> & { readonly configless: true; run(args: A): Promise<ExitCode> });

/** Loads the configuration, runs a command and turns its outcome into the exit code. */
export async function runHandler<A>(module: CommandModule<A>, args: A & Record<string, unknown>): Promise<void> {
  let lock: WriterLock | undefined;
  try {
    if (module.configless) {
      process.exitCode = await module.run(args);
      return;
    }
    const loaded = loadConfig({ flags: args, configPath: args.config as string | undefined });
    const { config } = loaded;
    configureBusyWait({
      timeoutSeconds: config['warehouse.busyTimeoutSeconds'],
      onWait: (path) => {
        // A reader waits for the writer, who holds the lock; a writer waits for a reader, who holds none.
        const holder = currentHolder(config.dataDir);
        const who = holder && !(holder.pid === process.pid && holder.host === hostname()) ? describeHolder(holder) : 'another process';
        out.info(`${path} is in use by ${who}; waiting up to ${config['warehouse.busyTimeoutSeconds']} s`);
      },
    });
    if (typeof module.writes === 'function' ? module.writes(args) : module.writes) {
      // Before the lock exists, so that no moment has the lock without its release on a signal.
      releaseOnSignal(config.dataDir);
      lock = await acquireWriterLock(config.dataDir, {
        command: module.command.split(' ')[0]!,
        waitSeconds: config['lock.waitSeconds'],
        staleSeconds: config['lock.staleSeconds'],
        onNotice: out.warn,
      });
    }
    process.exitCode = await module.run(args, loaded);
  } catch (error) {
    out.error(errorMessage(error));
    if (process.env.FANLAKE_DEBUG && error instanceof Error && error.stack) out.info(error.stack);
    process.exitCode = exitCodeFor(error);
  } finally {
    await lock?.release();
  }
}

/**
 * Ctrl-C or SIGTERM during a writing command: DuckDB's transactions and the raw layer's
 * tmp-then-rename files keep data consistent however the process ends, so the only thing
 * to tidy is the lock, which the next writer would otherwise have to take over.
 */
function releaseOnSignal(dataDir: string): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      out.info(`${signal}: stopping`);
      releaseIfOursSync(dataDir);
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  }
}
