import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { version as duckdbVersion } from '@duckdb/node-api';
import { writeFileAtomic } from '../core/atomic-file.js';
import { STATE_DIR } from '../raw-contract/data-dir.js';
import type { MacroDefinition } from './discover-project.js';
import type { MacroNode } from './macros.js';
import type { FunctionReference, TableReference } from './sql-references.js';

/** Where a build keeps its parses, under the data directory. */
export const PARSE_CACHE_FILE = join(STATE_DIR, 'model-parses.json');

/** What the graph takes from a model's parse: the tables and functions it names, and its first build's SQL. */
export interface ModelParse {
  references: TableReference[];
  unqualified: string[];
  functions: FunctionReference[];
  /**
   * An incremental model that reads itself: its SQL without the WHERE conditions that do (the
   * first build's), or null when it reads itself elsewhere (a problem). Absent otherwise.
   */
  firstBuildSql?: string | null;
}

interface CacheFile {
  version: 1;
  /** Each macro's name and the macros it calls, in the order they are created; their text is the definitions'. */
  macros?: { key: string; calls: { name: string; calls: string[] }[] };
  models: Record<string, ModelParse>;
}

/**
 * The parses of the last build, by the text parsed: every build parses all macros (in a
 * throwaway DuckDB, each created until all are) and all models (`json_serialize_sql`, and back
 * for an incremental model's first build), which cost a quiet build 0.2-0.3 s of its start,
 * with nothing else running, for texts that rarely change between two builds. An entry is
 * found by a hash of the DuckDB version and all it was made from (for a model, its relation,
 * materialization and SQL; for the macros, every definition in order), so a changed text
 * misses and is parsed again; only parses without problems are kept. A missing or unreadable
 * file is an empty cache. Each build writes what it used, so entries of old texts go. The
 * macros' texts are not copied (the overrides' macro names records): the definitions the key
 * was made from give them back.
 */
export class ParseCache {
  private readonly used: CacheFile = { version: 1, models: {} };
  private changed = false;

  private constructor(
    private readonly path: string,
    private readonly stored: CacheFile,
  ) {}

  static async open(path: string): Promise<ParseCache> {
    try {
      const file = JSON.parse(await readFile(path, 'utf8')) as unknown;
      if (isCacheFile(file)) return new ParseCache(path, file);
    } catch {
      // no cache yet: everything is parsed
    }
    return new ParseCache(path, { version: 1, models: {} });
  }

  /** The macros as parsed from exactly these definitions, if kept. */
  macros(definitions: readonly MacroDefinition[]): MacroNode[] | undefined {
    const stored = this.stored.macros;
    if (stored?.key !== macrosKey(definitions)) return undefined;
    const byName = new Map(definitions.map((definition) => [definition.name, definition]));
    const nodes = stored.calls.map(({ name, calls }) => ({ ...byName.get(name)!, calls }));
    if (nodes.some((node) => node.sql === undefined)) return undefined;
    this.used.macros = stored;
    return nodes;
  }

  keepMacros(definitions: readonly MacroDefinition[], nodes: readonly MacroNode[]): void {
    this.used.macros = { key: macrosKey(definitions), calls: nodes.map(({ name, calls }) => ({ name, calls })) };
    this.changed = true;
  }

  /** The model's parse, if kept for exactly this text, relation and materialization. */
  model(model: ModelKey): ModelParse | undefined {
    const key = modelKey(model);
    const parse = this.stored.models[key];
    if (parse !== undefined) this.used.models[key] = parse;
    return parse;
  }

  keepModel(model: ModelKey, parse: ModelParse): void {
    this.used.models[modelKey(model)] = parse;
    this.changed = true;
  }

  /**
   * Writes what this build used, when it parsed anything anew or left an entry unused. A file
   * that cannot be written costs the next build its parses, not this build its models.
   */
  async save(): Promise<void> {
    const dropped = Object.keys(this.stored.models).length !== Object.keys(this.used.models).length || this.stored.macros?.key !== this.used.macros?.key;
    if (!this.changed && !dropped) return;
    try {
      await mkdir(dirname(this.path), { recursive: true });
      await writeFileAtomic(this.path, JSON.stringify(this.used));
    } catch {
      // the next build parses again
    }
  }
}

/** A file of this shape; anything else (another version's, a torn one) is no cache. */
function isCacheFile(file: unknown): file is CacheFile {
  if (typeof file !== 'object' || file === null) return false;
  const { version, macros, models } = file as Partial<CacheFile>;
  if (version !== 1 || typeof models !== 'object' || models === null) return false;
  const lists = (entry: object, keys: string[]) => keys.every((key) => Array.isArray((entry as Record<string, unknown>)[key]));
  if (macros !== undefined && (typeof macros?.key !== 'string' || !Array.isArray(macros.calls) || !macros.calls.every((macro) => typeof macro?.name === 'string' && Array.isArray(macro.calls)))) return false;
  return Object.values(models).every((parse) => typeof parse === 'object' && parse !== null && lists(parse, ['references', 'unqualified', 'functions']));
}

/** What a model's parse depends on. */
export interface ModelKey {
  relation: string;
  materialized: string;
  sql: string;
}

function modelKey(model: ModelKey): string {
  return hash([duckdbVersion(), model.relation, model.materialized, model.sql]);
}

function macrosKey(definitions: readonly MacroDefinition[]): string {
  return hash([duckdbVersion(), ...definitions.map((macro) => [macro.name, macro.file, macro.sql, macro.description ?? null])]);
}

function hash(parts: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}
