import { closeMatches } from './close-matches.js';
import { parseTestDeclaration } from './checks/test-declaration.js';
import type { Severity, TestDeclaration } from './checks/test-declaration.js';
import { isPersonalKind, PERSONAL_KINDS, type PersonalFields, type PersonalKind } from '../sources/personal-data.js';

/**
 * How a model is written to the warehouse.
 * - `view`: `create or replace view`; default for `staging`.
 * - `table`: rebuilt in full, atomically (a failed build keeps the old table); default for
 *   `intermediate` and `marts`. With a `unique_key`, every build still computes all its rows
 *   but writes only the difference (see materialize.ts).
 * - `incremental`: created in full the first time, later merged by `unique_key`.
 */
export const MATERIALIZATIONS = ['view', 'table', 'incremental'] as const;
export type Materialization = (typeof MATERIALIZATIONS)[number];

/** The model layers; the folder under the models root is the DuckDB schema. */
export const MODEL_SCHEMAS = ['staging', 'intermediate', 'marts'] as const;
export type ModelSchema = (typeof MODEL_SCHEMAS)[number];

export const DEFAULT_MATERIALIZATION: Record<ModelSchema, Materialization> = {
  staging: 'view',
  intermediate: 'table',
  marts: 'table',
};

/**
 * The relation a view's rows are made of, one row of it each, and the expression over the
 * view's columns that gives that row's key: the relation's `unique_key` (one column), or a raw
 * table's one-column primary key.
 */
export interface RowsOf {
  /** `schema.table`, in lower case. */
  relation: string;
  expression: string;
}

/** A data test declared in a header or in `sources.json`. */
export interface DeclaredTest {
  declaration: TestDeclaration;
  severity: Severity;
}

export interface ModelHeader {
  materialized?: Materialization;
  /** Columns of the merge key: for `incremental`, and for a `table` written as a difference. */
  uniqueKey?: string[];
  /**
   * For `incremental`: a condition on the table's rows; those it holds are deleted before each
   * merge (rows whose source is gone: a merge only replaces the keys it is given).
   */
  incrementalDelete?: string;
  /**
   * For `incremental`: parents whose change rebuilds the model in full (lookups every row
   * reads, such as the seasons, where the model's WHERE conditions follow only its facts).
   */
  fullRebuildOn?: string[];
  /**
   * Columns that say where a row came from, not what it holds (`_extracted_at`): merged like
   * the others, but a row that differs only in them is no change for the model's children.
   */
  lineageColumns?: string[];
  /**
   * What the model takes as "now". `extraction`: the time its raw tables were last read (the
   * season that is current as of extraction), so a load that only read rows again builds it
   * too. `build`: the clock (`current_timestamp`), so every build builds it.
   */
  asOf?: AsOf;
  /**
   * For a view: each of its rows is made of the row of one key of one relation, the only one it
   * reads (`-- rows_of: <schema.table> <key expression over the view's columns>`), so a check
   * tests only the rows whose key changed (checks/delta-tests.ts).
   */
  rowsOf?: RowsOf;
  /** Output columns that carry personal data, by kind (`-- personal: email (email)`). */
  personal?: PersonalFields;
  /** Columns computed from a personal column that a reader judged hold none (`-- not_personal: x_level`). */
  notPersonal?: string[];
  /** How DuckDB stores some columns of the table (`-- compression: email (fsst)`), instead of trying every method. */
  compression?: Record<string, CompressionMethod>;
  description?: string;
  tests: DeclaredTest[];
}

/**
 * The header of a model file: the leading lines that are blank or `--` comments, up to the
 * first line of SQL. Lines of the form `-- key: value` with a known key are read; other
 * comment lines are prose and ignored (a key that looks like a misspelt known key is a problem,
 * so `-- materialised: table` does not silently build a view).
 *
 * ```sql
 * -- materialized: incremental          view | table | incremental (default: view in staging, table elsewhere)
 * -- unique_key: season_id, fan_id      required for incremental; comma-separated for a composite key;
 *                                       on a table: each build writes only the rows that differ
 * -- incremental_delete: id not in (select id from staging.stg_x)   incremental: rows deleted before each merge;
 *                                       it may read the model's parents (it is not parsed for the graph)
 * -- full_rebuild_on: marts.dim_match  incremental: parents whose changed content builds the model in full, as a
 *                                       changed definition does (lookups its increment does not follow)
 * -- lineage_columns: _extracted_at      with a unique_key: columns that say where a row came from; a row
 *                                       whose other columns are unchanged is written, but no change for
 *                                       the model's children (a re-read of unchanged tickets rebuilds nothing)
 * -- as_of: extraction                 "now" is the newest _extracted_at of the raw tables it reads (through
 *                                       views): built after every load of them, even one that only read rows
 *                                       again (which builds nothing else); as_of: build: "now" is the clock
 *                                       (current_timestamp), and every build builds it
 * -- rows_of: intermediate.int_clusters system || ':' || record_id   a view of one row per row of the one
 *                                       relation it reads: that row's key (its one-column unique_key, a raw
 *                                       table's primary key) as an expression over the view's columns; a check
 *                                       then tests only the view's rows whose key changed since a pass
 * -- personal: email (email), first_name (name)   output columns that carry personal data, each with its
 *                                       kind (src/sources/personal-data.ts); a test checks that every column
 *                                       computed from a personal column is named here
 * -- not_personal: email_level          columns that test would take for personal, read and found to hold
 *                                       none (a level name, a score); the check follows names, not tables
 * -- compression: email (fsst), system (dictionary)   a table's columns DuckDB stores by this method (one of
 *                                       COMPRESSION_METHODS) without trying the others on every row group;
 *                                       for large tables whose columns are alike from build to build
 * -- description: One row per ticket.   free text, copied to lineage.json
 * -- test: unique(ticket_id)            a data test run by `fanlake check`, see test-declaration.ts
 * -- test[warn]: not_null(email)        the same at warning level: reported, does not fail `check`
 * select ...
 * ```
 */
/** What a model may take as "now" (`-- as_of:`). */
export const AS_OF = ['extraction', 'build'] as const;
export type AsOf = (typeof AS_OF)[number];

/**
 * How DuckDB may be told to store a column (`-- compression:`, its `USING COMPRESSION`). Left to
 * itself, DuckDB compresses each row group of each column by every method that applies and keeps
 * the smallest: for a text column, dictionary and FSST both, a third to half of the cost of
 * writing it. A column whose kind of values is known (a key of one record each: fsst; a name,
 * a town, a code: dictionary) is written at once by the method DuckDB would have chosen.
 */
export const COMPRESSION_METHODS = ['uncompressed', 'rle', 'bitpacking', 'dictionary', 'fsst'] as const;
export type CompressionMethod = (typeof COMPRESSION_METHODS)[number];

export const HEADER_KEYS = ['materialized', 'unique_key', 'incremental_delete', 'full_rebuild_on', 'lineage_columns', 'as_of', 'rows_of', 'personal', 'not_personal', 'compression', 'description', 'test', 'test[warn]'] as const;

export type ParsedHeader = { header: ModelHeader; problems: string[] };

const HEADER_LINE = /^--\s*([a-z_]+(?:\[[a-z]+\])?)\s*:\s*(.*?)\s*$/;

/** A header's comma-separated column names; none at all is a problem. */
function columnList(key: string, value: string, problems: string[]): string[] {
  const columns = value.split(',').map((column) => column.trim()).filter(Boolean);
  if (columns.length === 0) problems.push(`${key}: name at least one column`);
  return columns;
}

const PERSONAL_ENTRY = /^([A-Za-z_][A-Za-z0-9_]*)\s*\(\s*([a-z_]+)\s*\)$/;

/** `column (method), column (method)`; the line may repeat, as personal's. */
function compressionList(value: string, problems: string[]): Record<string, CompressionMethod> {
  const found: Record<string, CompressionMethod> = {};
  for (const entry of columnList('compression', value, problems)) {
    const match = PERSONAL_ENTRY.exec(entry);
    if (match && (COMPRESSION_METHODS as readonly string[]).includes(match[2]!)) found[match[1]!] = match[2] as CompressionMethod;
    else problems.push(`compression: "${entry}" is not "column (method)" with a method among ${COMPRESSION_METHODS.join(', ')}`);
  }
  return found;
}

/** `column (kind), column (kind)`; the line may repeat, so a long list can be split. */
function personalList(value: string, problems: string[]): Record<string, PersonalKind> {
  const found: Record<string, PersonalKind> = {};
  for (const entry of columnList('personal', value, problems)) {
    const match = PERSONAL_ENTRY.exec(entry);
    if (match && isPersonalKind(match[2]!)) found[match[1]!] = match[2];
    else problems.push(`personal: "${entry}" is not "column (kind)" with a kind among ${Object.keys(PERSONAL_KINDS).join(', ')}`);
  }
  return found;
}

export function parseModelHeader(sql: string): ParsedHeader {
  const header: ModelHeader = { tests: [] };
  const problems: string[] = [];
  for (const { key, value } of headerEntries(sql)) {
    switch (key) {
      case 'materialized':
        if ((MATERIALIZATIONS as readonly string[]).includes(value)) header.materialized = value as Materialization;
        else problems.push(`materialized: "${value}" is not one of ${MATERIALIZATIONS.join(', ')}`);
        break;
      case 'unique_key':
        header.uniqueKey = columnList(key, value, problems);
        break;
      case 'lineage_columns':
        header.lineageColumns = columnList(key, value, problems);
        break;
      case 'as_of':
        if ((AS_OF as readonly string[]).includes(value)) header.asOf = value as AsOf;
        else problems.push(`as_of: "${value}" is not one of ${AS_OF.join(', ')}`);
        break;
      case 'personal':
        header.personal = { ...header.personal, ...personalList(value, problems) };
        break;
      case 'not_personal':
        header.notPersonal = [...(header.notPersonal ?? []), ...columnList(key, value, problems)];
        break;
      case 'compression':
        header.compression = { ...header.compression, ...compressionList(value, problems) };
        break;
      case 'incremental_delete':
        if (value === '') problems.push('incremental_delete: give a condition on the rows to delete');
        header.incrementalDelete = value;
        break;
      case 'full_rebuild_on':
        header.fullRebuildOn = columnList(key, value, problems).map((relation) => relation.toLowerCase());
        break;
      case 'rows_of': {
        const match = /^([a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*)\s+(\S.*)$/i.exec(value);
        if (match) header.rowsOf = { relation: match[1]!.toLowerCase(), expression: match[2]! };
        else problems.push(`rows_of: "${value}" is not <schema.table> <key expression>`);
        break;
      }
      case 'description':
        header.description = value;
        break;
      case 'test':
      case 'test[warn]': {
        const parsed = parseTestDeclaration(value);
        if (parsed.ok) header.tests.push({ declaration: parsed.declaration, severity: key === 'test' ? 'error' : 'warn' });
        else problems.push(`${key}: ${parsed.problem}`);
        break;
      }
      default: {
        const near = closeMatches(key, HEADER_KEYS, 1);
        if (near.length > 0) problems.push(`unknown header key "${key}" (did you mean "${near[0]}"?)`);
      }
    }
  }
  for (const key of misplacedKeys(sql)) problems.push(`"-- ${key}:" comes after the SQL has started and would be ignored; move it into the leading comment block`);
  if (header.materialized === 'incremental' && !header.uniqueKey) problems.push('materialized: incremental needs a "-- unique_key: column[, column]" line');
  if (header.uniqueKey && (header.materialized === undefined || header.materialized === 'view')) {
    problems.push('unique_key applies to materialized: incremental or table; give the model one of those');
  }
  if (header.incrementalDelete !== undefined && header.materialized !== 'incremental') problems.push('incremental_delete only applies to materialized: incremental');
  if (header.fullRebuildOn !== undefined && header.materialized !== 'incremental') problems.push('full_rebuild_on only applies to materialized: incremental');
  if (header.lineageColumns && !header.uniqueKey) problems.push('lineage_columns applies to a model with a unique_key (incremental, or a table written as a difference)');
  const keyed = new Set((header.uniqueKey ?? []).map((column) => column.toLowerCase()));
  const lineageKeys = (header.lineageColumns ?? []).filter((column) => keyed.has(column.toLowerCase()));
  if (lineageKeys.length > 0) problems.push(`lineage_columns: ${lineageKeys.join(', ')} is part of the unique_key`);
  return { header, problems };
}

/** Known header keys written below the first line of SQL, where they have no effect. */
function misplacedKeys(sql: string): string[] {
  const lines = sql.split(/\r?\n/).map((line) => line.trim());
  const firstSql = lines.findIndex((line) => line !== '' && !line.startsWith('--'));
  if (firstSql < 0) return [];
  return lines
    .slice(firstSql)
    .map((line) => HEADER_LINE.exec(line)?.[1])
    .filter((key): key is string => key !== undefined && (HEADER_KEYS as readonly string[]).includes(key));
}

/** `-- key: value` lines of the leading comment block; also used for custom test files. */
export function headerEntries(sql: string): { key: string; value: string }[] {
  const entries: { key: string; value: string }[] = [];
  for (const rawLine of sql.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === '') continue;
    if (!line.startsWith('--')) break;
    const match = HEADER_LINE.exec(line);
    if (match) entries.push({ key: match[1]!, value: match[2]! });
  }
  return entries;
}
