import { readdir, readFile } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSourcesFile, SOURCES_FILE } from './checks/sources-file.js';
import type { SourceDefinition } from './checks/sources-file.js';
import type { Severity } from './checks/test-declaration.js';
import type { PersonalFields } from '../sources/personal-data.js';
import { DEFAULT_MATERIALIZATION, headerEntries, MODEL_SCHEMAS, parseModelHeader } from './model-header.js';
import type { AsOf, CompressionMethod, DeclaredTest, Materialization, ModelSchema, RowsOf } from './model-header.js';
import { ModelProjectError } from './model-errors.js';
import { RAW_SCHEMA } from '../raw-contract/index.js';

/**
 * `<package root>/sql`, wherever the code runs from (`src/models` under vitest, `dist/models`
 * when built): both sit two levels below the package root.
 */
export const DEFAULT_MODELS_DIR = fileURLToPath(new URL('../../sql', import.meta.url));

/** Schema of the tables loaded from `sql/seeds/*.csv`. */
export const SEEDS_SCHEMA = 'seeds';
/** Schema of the extracted tables; models read them as sources. */
export const SOURCE_SCHEMA = RAW_SCHEMA;
/** Schema of the DuckDB macros of `sql/macros/*.sql`, which build creates in the warehouse. */
export const MACRO_SCHEMA = 'macros';

/** One SQL model: `sql/<schema>/[...]/<name>.sql` becomes `<schema>.<name>`. */
export interface ModelDefinition {
  name: string;
  schema: ModelSchema;
  /** `schema.name`, how other models and DuckDB users refer to it. */
  relation: string;
  /** Path for messages, from the models root's folder name: `sql/marts/dim_fan.sql`. */
  file: string;
  sql: string;
  materialized: Materialization;
  /** Merge key of an incremental model; empty otherwise. */
  uniqueKey: string[];
  /** An incremental model's condition on its rows to delete before each merge (model-header.ts). */
  incrementalDelete?: string;
  /** Parents whose change builds an incremental model in full (model-header.ts); empty when none. */
  fullRebuildOn: string[];
  /** Columns whose change alone is no change for the model's children (model-header.ts). */
  lineageColumns: string[];
  /** What the model takes as "now", when it reads a time at all (model-header.ts). */
  asOf?: AsOf;
  /** A view's rows, one per row of the one relation it reads, and that row's key (model-header.ts). */
  rowsOf?: RowsOf;
  /** Output columns that carry personal data, by kind (model-header.ts); empty when none. */
  personal: PersonalFields;
  /** Columns the personal-data check would flag that hold none (model-header.ts). */
  notPersonal: string[];
  /** Columns DuckDB stores by a given method (model-header.ts); empty when none. */
  compression: Record<string, CompressionMethod>;
  description?: string;
  tests: DeclaredTest[];
}

/** `sql/seeds/<name>.csv`, loaded as `seeds.<name>`. */
export interface SeedDefinition {
  name: string;
  relation: string;
  file: string;
  /** Absolute path, given to DuckDB's read_csv. */
  path: string;
}

/**
 * A DuckDB macro: `sql/macros/<name>.sql` holds one `create or replace macro macros.<name>(...)`
 * (see macros.ts), or build derives it from a setting.
 */
export interface MacroDefinition {
  name: string;
  /** Path for messages (`sql/macros/phone_e164.sql`), or the setting it comes from. */
  file: string;
  sql: string;
  description?: string;
}

/** `sql/tests/<name>.sql`: a query that returns the failing rows. */
export interface CustomTestDefinition {
  name: string;
  file: string;
  sql: string;
  severity: Severity;
  description?: string;
  /**
   * Failing rows `check` shows (`-- show: N`), for a test whose every row names something to
   * fix, such as each unmapped code; others show the run's sample size.
   */
  show?: number;
  /**
   * How the test can read only what changed (`-- key: <schema.table> <expression>`, one per
   * relation it reads): each failing row rests only on the rows of each relation whose key, this
   * expression over that relation's columns (for a model written by key, over its `unique_key`
   * columns), is the row's own, so a check reads the rows of the keys changed since the test last
   * passed (checks/keyed-tests.ts). Each such relation is read only as `select * from <relation>`.
   */
  keys?: CustomTestKey[];
}

/** One relation a keyed custom test reads, and the expression of its rows' key. */
export interface CustomTestKey {
  /** `schema.table`, in lower case. */
  relation: string;
  expression: string;
}

/** Everything under a models root, read and header-checked but not yet parsed by DuckDB. */
export interface ModelProject {
  root: string;
  models: ModelDefinition[];
  seeds: SeedDefinition[];
  customTests: CustomTestDefinition[];
  sources: SourceDefinition[];
  macros: MacroDefinition[];
}

const NAME = /^[a-z][a-z0-9_]*$/;

/** A CTE's hint that DuckDB drops when it stores a view's SQL. */
const NOT_MATERIALIZED = /\bnot\s+materialized\b/i;

/** SQL without its `--` comments (a comment may well name the hint it explains). */
function withoutComments(sql: string): string {
  return sql.replace(/--[^\n]*/g, '');
}

/**
 * Reads the models root. Files and folders starting with `_` or `.` are ignored, as is
 * anything outside `staging/`, `intermediate/`, `marts/`, `macros/`, `seeds/`, `tests/` and `sources.json`.
 * A missing root is an empty project.
 *
 * @throws ModelProjectError listing every problem (bad header, bad name, duplicate name).
 */
export async function discoverProject(root: string = DEFAULT_MODELS_DIR): Promise<ModelProject> {
  const problems: string[] = [];
  const display = (path: string) => [basename(root), ...relative(root, path).split(sep)].join('/');
  const project: ModelProject = { root, models: [], seeds: [], customTests: [], sources: [], macros: [] };

  for (const schema of MODEL_SCHEMAS) {
    for (const path of await listFiles(join(root, schema), '.sql', true)) {
      const file = display(path);
      const name = basename(path, '.sql');
      if (!NAME.test(name)) {
        problems.push(`${file}: a model's file name is its table name: use lowercase letters, digits and _`);
        continue;
      }
      const sql = await readFile(path, 'utf8');
      const { header, problems: headerProblems } = parseModelHeader(sql);
      problems.push(...headerProblems.map((problem) => `${file}: ${problem}`));
      const materialized = header.materialized ?? DEFAULT_MATERIALIZATION[schema];
      if (header.rowsOf !== undefined && materialized !== 'view') problems.push(`${file}: rows_of applies to a view; give the model materialized: view`);
      if (header.compression !== undefined && materialized === 'view') problems.push(`${file}: compression applies to a table; give the model materialized: table or incremental`);
      if (materialized === 'view' && NOT_MATERIALIZED.test(withoutComments(sql))) {
        problems.push(`${file}: a view does not keep "not materialized" (DuckDB stores a view's SQL without it, and copies a CTE read twice): read the table directly where the CTE is read twice`);
      }
      project.models.push({
        name,
        schema,
        relation: `${schema}.${name}`,
        file,
        sql,
        materialized,
        uniqueKey: header.uniqueKey ?? [],
        lineageColumns: header.lineageColumns ?? [],
        fullRebuildOn: header.fullRebuildOn ?? [],
        personal: header.personal ?? {},
        notPersonal: header.notPersonal ?? [],
        compression: header.compression ?? {},
        ...(header.incrementalDelete === undefined ? {} : { incrementalDelete: header.incrementalDelete }),
        ...(header.asOf === undefined ? {} : { asOf: header.asOf }),
        ...(header.rowsOf === undefined ? {} : { rowsOf: header.rowsOf }),
        description: header.description,
        tests: header.tests,
      });
    }
  }

  for (const path of await listFiles(join(root, SEEDS_SCHEMA), '.csv', false)) {
    const name = basename(path, '.csv');
    if (NAME.test(name)) project.seeds.push({ name, relation: `${SEEDS_SCHEMA}.${name}`, file: display(path), path });
    else problems.push(`${display(path)}: a seed's file name is its table name: use lowercase letters, digits and _`);
  }

  for (const path of await listFiles(join(root, MACRO_SCHEMA), '.sql', false)) {
    const name = basename(path, '.sql');
    if (!NAME.test(name)) {
      problems.push(`${display(path)}: a macro's file name is its name: use lowercase letters, digits and _`);
      continue;
    }
    const sql = await readFile(path, 'utf8');
    const description = headerEntries(sql).find((entry) => entry.key === 'description')?.value;
    project.macros.push({ name, file: display(path), sql, ...(description === undefined ? {} : { description }) });
  }

  for (const path of await listFiles(join(root, 'tests'), '.sql', false)) {
    const file = display(path);
    const sql = await readFile(path, 'utf8');
    const test: CustomTestDefinition = { name: basename(path, '.sql'), file, sql, severity: 'error' };
    for (const { key, value } of headerEntries(sql)) {
      if (key === 'severity') {
        if (value === 'warn' || value === 'error') test.severity = value;
        else problems.push(`${file}: severity: "${value}" is not warn or error`);
      } else if (key === 'description') {
        test.description = value;
      } else if (key === 'show') {
        if (/^[1-9][0-9]{0,3}$/.test(value)) test.show = Number(value);
        else problems.push(`${file}: show: "${value}" is not a number of rows from 1 to 9999`);
      } else if (key === 'key') {
        const declared = customTestKey(sql, value);
        if (typeof declared === 'string') problems.push(`${file}: key: ${declared}`);
        else (test.keys ??= []).push(declared);
      }
    }
    project.customTests.push(test);
  }

  const sourcesText = await readFile(join(root, SOURCES_FILE), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (sourcesText !== undefined) {
    const parsed = parseSourcesFile(sourcesText, display(join(root, SOURCES_FILE)));
    project.sources = parsed.sources;
    problems.push(...parsed.problems);
  }

  problems.push(...duplicateNames(project));
  if (problems.length > 0) throw new ModelProjectError(problems, { root });
  return project;
}

/** Model and seed names must be unique across layers: `--select` and messages use bare names. */
function duplicateNames(project: ModelProject): string[] {
  const seen = new Map<string, string>();
  const problems: string[] = [];
  for (const node of [...project.seeds, ...project.models]) {
    const other = seen.get(node.name);
    if (other) problems.push(`${node.file}: the name "${node.name}" is also used by ${other}; names must be unique`);
    else seen.set(node.name, node.file);
  }
  return problems;
}

/** Files ending in `extension`, sorted, optionally through sub-folders; none when the folder is missing. */
async function listFiles(folder: string, extension: string, recursive: boolean): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith('_') || entry.name.startsWith('.')) continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory() && recursive) files.push(...(await listFiles(path, extension, true)));
    else if (entry.isFile() && entry.name.endsWith(extension)) files.push(path);
  }
  return files;
}

/**
 * A custom test's `-- key: <schema.table> <expression>`, or what is wrong with it: the relation
 * must be read only as `select * from <relation>` (a CTE of its own), which a check of the
 * changed keys replaces with the rows of those keys.
 */
function customTestKey(sql: string, value: string): CustomTestKey | string {
  const match = /^([a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*)\s+(\S.*)$/i.exec(value);
  if (!match) return `"${value}" is not <schema.table> <expression>`;
  const relation = match[1]!.toLowerCase();
  const body = sql.split(/\r?\n/).filter((line) => !line.trim().startsWith('--')).join('\n');
  const named = body.match(new RegExp(`\\b${relation.replace('.', '\\.')}\\b`, 'gi'))?.length ?? 0;
  const imported = body.match(customTestImport(relation))?.length ?? 0;
  if (named === 0 || named !== imported) return `${relation} must be read only as "select * from ${relation}" (a CTE of its own)`;
  return { relation, expression: match[2]!.trim() };
}

/** Where a keyed custom test reads `relation`: `select * from <relation>` closing its CTE. */
export function customTestImport(relation: string): RegExp {
  return new RegExp(`select\\s+\\*\\s+from\\s+${relation.replace('.', '\\.')}(?=\\s*\\))`, 'gi');
}
