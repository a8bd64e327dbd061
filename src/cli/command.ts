import type { Argv } from 'yargs';
import { type LoadedConfig, loadConfig } from '../config/load-config.js';
import { errorMessage, exitCodeFor } from '../core/errors.js';
import { out } from './output.js';

/** Exit statuses of the contract: 0 success, 1 failed or partial run, 2 bad usage. */
export type ExitCode = 0 | 1 | 2;

export interface CommandModule<A> {
  readonly command: string;
  readonly describe: string;
  /**
   * True for a command that writes under `$FANLAKE_DATA_DIR`: `runHandler` then holds the
   * data directory's one writer lock for the whole run (see `src/core/writer-lock.ts`).
   */
  readonly writes?: boolean;
  builder(yargs: Argv): Argv<A>;
  /** Runs the command; returns the exit code. Errors are mapped by `runHandler`. */
  run(args: A, config: LoadedConfig): Promise<ExitCode>;
}

/** Loads the configuration, runs a command and turns its outcome into the exit code. */
export async function runHandler<A>(module: CommandModule<A>, args: A & Record<string, unknown>): Promise<void> {
  try {
    const config = loadConfig({ flags: args, configPath: args.config as string | undefined });
    process.exitCode = await module.run(args, config);
  } catch (error) {
    out.error(errorMessage(error));
    if (process.env.FANLAKE_DEBUG && error instanceof Error && error.stack) out.info(error.stack);
    process.exitCode = exitCodeFor(error);
  }
}
