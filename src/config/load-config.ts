import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import type { z } from 'zod';
import { UsageError } from '../core/errors.js';
import { registerSecret } from '../core/secrets.js';
import { SETTINGS, type SettingSpec } from './settings.js';

type Setting = (typeof SETTINGS)[number];

/** Where the club's own files are when `club.dir` is not set: beside the config file. */
export const DEFAULT_CLUB_DIR = 'club';

/** The effective configuration, one typed value per setting key. */
export type Config = { readonly [S in Setting as S['key']]: z.output<S['schema']> };

export type Origin = 'flag' | 'environment' | '.env' | 'config file' | 'default';

export interface LoadedConfig {
  config: Config;
  /** Where each value came from, for `status` and error messages. */
  origins: Record<string, Origin>;
  /** The config file as parsed (empty without one), for its structured sections such as `schedules`. */
  file: Record<string, unknown>;
}

export interface ConfigSources {
  /** Parsed CLI flags, keyed by flag name (yargs output). */
  flags?: Record<string, unknown>;
  env?: NodeJS.ProcessEnv;
  /** Explicit --config path; otherwise ./fanlake.config.json when it exists. */
  configPath?: string;
  cwd?: string;
}

/**
 * Resolves every setting: flags win over the environment, the environment over `.env`,
 * `.env` over the config file. A bad value is a UsageError naming the key, the problem
 * and where the value came from, never the value itself when it is a secret.
 */
export function loadConfig(sources: ConfigSources = {}): LoadedConfig {
  const cwd = sources.cwd ?? process.cwd();
  const env = sources.env ?? process.env;
  const file = readConfigFile(cwd, sources.configPath);
  const dotenv = readDotEnv(cwd);
  const values: Record<string, unknown> = {};
  const origins: Record<string, Origin> = {};

  for (const setting of SETTINGS as readonly SettingSpec[]) {
    const [raw, origin] = pick(setting, sources.flags ?? {}, env, dotenv, file);
    const parsed = setting.schema.safeParse(raw);
    if (!parsed.success) {
      const problem = parsed.error.issues[0]?.message ?? 'is invalid';
      const where = origin === 'flag' ? `flag --${setting.flag}` : origin === 'config file' ? `config file key ${setting.key}` : `${origin} variable ${setting.env}`;
      throw new UsageError(`configuration ${setting.key}: ${problem} (from ${where})`, { key: setting.key });
    }
    values[setting.key] = parsed.data;
    origins[setting.key] = origin;
    if (setting.secret) registerSecret(parsed.data as string | undefined);
  }
  // The club's folder sits beside its config file, which it is versioned with; a path given
  // in the environment or a flag is the shell's, relative to the working directory.
  const configDir = sources.configPath ? dirname(resolve(cwd, sources.configPath)) : cwd;
  const clubBase = origins['club.dir'] === 'config file' || origins['club.dir'] === 'default' ? configDir : cwd;
  values['club.dir'] = resolve(clubBase, (values['club.dir'] as string | undefined) ?? DEFAULT_CLUB_DIR);
  return { config: values as Config, origins, file };
}

function pick(
  setting: SettingSpec,
  flags: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  dotenv: Record<string, string>,
  file: Record<string, unknown>,
): [unknown, Origin] {
  if (setting.flag && flags[setting.flag] !== undefined) return [flags[setting.flag], 'flag'];
  if (env[setting.env] !== undefined && env[setting.env] !== '') return [env[setting.env], 'environment'];
  if (dotenv[setting.env] !== undefined && dotenv[setting.env] !== '') return [dotenv[setting.env], '.env'];
  const fromFile = lookup(file, setting.key);
  if (fromFile !== undefined) {
    if (setting.secret) {
      throw new UsageError(`configuration ${setting.key}: secrets are read only from the environment or .env, not from the config file`, { key: setting.key });
    }
    return [fromFile, 'config file'];
  }
  return [setting.default, 'default'];
}

function lookup(object: Record<string, unknown>, dotted: string): unknown {
  let node: unknown = object;
  for (const part of dotted.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

function readConfigFile(cwd: string, explicit?: string): Record<string, unknown> {
  const path = resolve(cwd, explicit ?? 'fanlake.config.json');
  if (!existsSync(path)) {
    if (explicit) throw new UsageError(`config file ${explicit} does not exist`);
    return {};
  }
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not a JSON object');
    return parsed as Record<string, unknown>;
  } catch (error) {
    throw new UsageError(`config file ${path} is not valid: ${(error as Error).message}`);
  }
}

function readDotEnv(cwd: string): Record<string, string> {
  const path = resolve(cwd, '.env');
  return existsSync(path) ? (parseEnv(readFileSync(path, 'utf8')) as Record<string, string>) : {};
}
