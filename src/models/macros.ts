import { createHash } from 'node:crypto';
import { type DuckDBConnection, version as duckdbVersion } from '@duckdb/node-api';
import { connect, IN_MEMORY, openDatabase, queryRows, quoteIdent, quoteLiteral } from '../core/duckdb.js';
import { ensureBookkeeping } from '../warehouse/bookkeeping.js';
import { ensureMetaSchema } from '../warehouse/meta-schema.js';
import { closeMatches } from './close-matches.js';
import { MACRO_SCHEMA } from './discover-project.js';
import type { MacroDefinition } from './discover-project.js';
import { functionCalls, type ParsedSelect, parseSelects } from './sql-references.js';

/** Values build writes into macros, so that a plain DuckDB shell on the warehouse computes what build did. */
export interface MacroSettings {
  /** ITU country calling code, `+47`: what `macros.phone_default_country_code()` returns. */
  phoneDefaultCountryCode: string;
}

export const DEFAULT_MACRO_SETTINGS: MacroSettings = { phoneDefaultCountryCode: '+47' };

/** A macro with the other macros its body calls (by name, without the schema). */
export interface MacroNode extends MacroDefinition {
  calls: string[];
}

/**
 * The macros build derives from settings. They are macros rather than values pasted into the
 * SQL files so that every model stays plain SQL, and a changed setting is a changed macro:
 * the models that call it (through `macros.phone_e164`) are rebuilt.
 */
export function settingMacros(settings: MacroSettings): MacroDefinition[] {
  return [
    {
      name: 'phone_default_country_code',
      file: `setting phoneDefaultCountryCode (${settings.phoneDefaultCountryCode})`,
      sql: `create or replace macro ${MACRO_SCHEMA}.phone_default_country_code() as ${quoteLiteral(settings.phoneDefaultCountryCode)};\n`,
      description: 'The country calling code a bare national phone number gets (setting FANLAKE_PHONE_DEFAULT_COUNTRY_CODE).',
    },
  ];
}

/**
 * Creates the macros in a throwaway in-memory DuckDB to check that each file creates
 * `macros.<its file name>` and nothing else, and reads back what each body calls from DuckDB's
 * own parse of the stored definition (`json_serialize_sql`), as for models. DuckDB resolves
 * the macros a body calls when it is created, so files are tried in passes until none more
 * succeeds: the resulting order (the nodes' order) creates each macro after those it calls. A
 * file that never runs is a problem naming DuckDB's reason (an unknown function, a syntax
 * error, a cycle). The catalog is listed once at the end: a listing costs tens of ms.
 */
export async function parseMacros(macros: readonly MacroDefinition[]): Promise<{ nodes: Map<string, MacroNode>; problems: string[] }> {
  const problems: string[] = [];
  const nodes = new Map<string, MacroNode>();
  const instance = await openDatabase(IN_MEMORY, { threads: 1 });
  const connection = await connect(instance);
  try {
    await connection.run(`create schema ${quoteIdent(MACRO_SCHEMA)}`);
    await ensureTablesMacrosRead(connection, macros);
    const ran: MacroDefinition[] = [];
    const failures = new Map<MacroDefinition, string>();
    let pending = [...macros];
    while (pending.length > 0) {
      const left: MacroDefinition[] = [];
      for (const macro of pending) {
        try {
          await connection.run(macro.sql);
          failures.delete(macro);
          ran.push(macro);
        } catch (error) {
          failures.set(macro, `does not run: ${error instanceof Error ? error.message : String(error)}`);
          left.push(macro);
        }
      }
      if (left.length === pending.length) break;
      pending = left;
    }
    for (const [macro, problem] of failures) problems.push(`${macro.file}: ${problem}`);

    const stored = new Map((await storedMacros(connection)).map((row) => [row.name, row]));
    const created = ran.filter((macro) => {
      if (stored.has(macro.name)) return true;
      problems.push(`${macro.file}: does not create ${MACRO_SCHEMA}.${macro.name}; the file holds create or replace macro ${MACRO_SCHEMA}.${macro.name}(...) as ...`);
      return false;
    });
    const bodies = await parseSelects(connection, created.map((macro) => bodyQuery(stored.get(macro.name)!)));
    for (const [at, macro] of created.entries()) {
      const calls = callsOf(bodies[at]!);
      if (typeof calls === 'string') problems.push(`${macro.file}: ${calls}`);
      else nodes.set(macro.name, { ...macro, calls });
    }
    const named = new Set(macros.map((macro) => macro.name));
    for (const name of stored.keys()) {
      if (!named.has(name)) problems.push(`${MACRO_SCHEMA}.${name} is created by a file of another name; each macro is sql/${MACRO_SCHEMA}/<its name>.sql`);
    }
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  return { nodes, problems };
}

/**
 * One hash per macro: its SQL and the hashes of the macros it calls, so a change anywhere
 * below a macro changes it. Model fingerprints include the macros they call (build-state.ts).
 */
export function macroFingerprints(nodes: ReadonlyMap<string, MacroNode>): Map<string, string> {
  const prints = new Map<string, string>();
  const print = (name: string): string => {
    const known = prints.get(name);
    if (known !== undefined) return known;
    const node = nodes.get(name);
    // parseMacros created each macro after the ones it calls, so none is missing
    const inputs = node === undefined ? ['missing'] : [node.sql, ...node.calls.map((call) => `${call}=${print(call)}`)];
    const hash = createHash('sha256').update(JSON.stringify(inputs)).digest('hex');
    prints.set(name, hash);
    return hash;
  };
  for (const name of nodes.keys()) print(name);
  return prints;
}

/**
 * Creates every macro in the warehouse (schema `macros`, owned by fanlake: macros whose file
 * is gone are dropped) in one transaction. Runs on every build, whatever `--select` chose: a
 * view reads the macro's current definition whenever it is queried. Each macro is stamped with
 * a hash of its text (its DuckDB comment, which `create or replace` clears), and a macro whose
 * stamp matches is left as it is: creating all 60-odd again cost a quiet build 0.1-0.2 s before
 * its first model, for macros that rarely change. One replaced by other means (the identity
 * model's, when a build trains it; by hand) has no stamp and is created again.
 */
export async function createMacros(connection: DuckDBConnection, nodes: ReadonlyMap<string, MacroNode>): Promise<void> {
  await ensureTablesMacrosRead(connection, nodes.values());
  const stored = await storedMacros(connection);
  const stamps = new Map(stored.map((row) => [row.name, row.comment]));
  const gone = stored.filter((row) => !nodes.has(row.name));
  const changed = [...nodes.values()].filter((node) => stamps.get(node.name) !== macroStamp(node));
  if (gone.length === 0 && changed.length === 0) return;
  await connection.run('begin transaction');
  try {
    await connection.run(`create schema if not exists ${quoteIdent(MACRO_SCHEMA)}`);
    for (const row of gone) await connection.run(`drop ${macroKind(row.type)} ${quoteIdent(MACRO_SCHEMA)}.${quoteIdent(row.name)}`);
    for (const node of changed) await connection.run(node.sql);
    await stampMacros(connection, changed);
    await connection.run('commit');
  } catch (error) {
    await connection.run('rollback').catch(() => undefined);
    throw error;
  }
}

/**
 * Creates one macro outside createMacros (the identity model's, when a build trains it),
 * stamped as createMacros stamps, so the next build leaves it as it is.
 */
export async function createMacro(connection: DuckDBConnection, macro: MacroDefinition): Promise<void> {
  await connection.run(macro.sql);
  await stampMacros(connection, [macro]);
}

async function stampMacros(connection: DuckDBConnection, macros: readonly MacroDefinition[]): Promise<void> {
  const types = new Map((await storedMacros(connection)).map((row) => [row.name, row.type]));
  for (const macro of macros) {
    await connection.run(`comment on ${macroKind(types.get(macro.name))} ${quoteIdent(MACRO_SCHEMA)}.${quoteIdent(macro.name)} is ${quoteLiteral(macroStamp(macro))}`);
  }
}

/** What a macro created from `node` carries as its comment: its text's hash, under the DuckDB version that created it. */
function macroStamp(node: MacroDefinition): string {
  return `fanlake ${createHash('sha256').update(JSON.stringify([duckdbVersion(), node.sql])).digest('hex')}`;
}

function macroKind(type: string | undefined): string {
  return type === 'table_macro' ? 'macro table' : 'macro';
}

/**
 * A macro may read fanlake's own tables (the identity model's frozen statistics, a model's last
 * build), and DuckDB binds a macro's tables when it is created: they exist before any macro.
 */
async function ensureTablesMacrosRead(connection: DuckDBConnection, macros: Iterable<{ sql: string }>): Promise<void> {
  if (![...macros].some((macro) => /\bmeta\./.test(macro.sql))) return;
  await ensureMetaSchema(connection);
  await ensureBookkeeping(connection);
}

/** The macros a model calls as `macros.<name>(...)`, and unknown or unqualified calls as problems. */
export function macroCalls(
  calls: readonly { schema: string; name: string }[],
  known: ReadonlyMap<string, MacroNode>,
): { macros: string[]; problems: string[] } {
  const macros: string[] = [];
  const problems: string[] = [];
  for (const call of calls) {
    if (call.schema === MACRO_SCHEMA) {
      if (known.has(call.name)) macros.push(call.name);
      else problems.push(`calls ${MACRO_SCHEMA}.${call.name}, which is no macro in sql/${MACRO_SCHEMA}${suggestMacro(call.name, known.keys())}`);
    } else if (call.schema === '' && known.has(call.name)) {
      // DuckDB would look for it in schema main and fail; say so before anything runs.
      problems.push(`calls ${call.name}(...) without its schema; write ${MACRO_SCHEMA}.${call.name}(...)`);
    }
  }
  return { macros, problems };
}

/** A stored macro's definition as a query to parse (`select 1` when DuckDB keeps none). */
function bodyQuery(row: { type: string; definition: string | null }): string {
  if (row.definition === null) return 'select 1';
  // A scalar macro's stored definition is an expression, a table macro's a query.
  return row.type === 'table_macro' ? row.definition : `select ${row.definition}`;
}

/** The macros a stored macro calls, from DuckDB's parse of its definition; a string is a problem. */
function callsOf(parsed: ParsedSelect): string[] | string {
  if (!parsed.ok) return `its body cannot be read back: ${parsed.problem}`;
  return [...new Set(functionCalls(parsed.tree).filter((call) => call.schema === MACRO_SCHEMA).map((call) => call.name))];
}

async function storedMacros(connection: DuckDBConnection): Promise<{ name: string; type: string; definition: string | null; comment: string | null }[]> {
  const rows = await queryRows(
    connection,
    `select distinct function_name, function_type, macro_definition, comment from duckdb_functions()
     where database_name = current_database() and schema_name = $1 and function_type in ('macro', 'table_macro')`,
    [MACRO_SCHEMA],
  );
  return rows.map((row) => ({
    name: String(row.function_name),
    type: String(row.function_type),
    definition: row.macro_definition === null ? null : String(row.macro_definition),
    comment: row.comment === null ? null : String(row.comment),
  }));
}

function suggestMacro(name: string, names: Iterable<string>): string {
  const near = closeMatches(name, names, 1);
  return near.length > 0 ? ` (did you mean ${MACRO_SCHEMA}.${near[0]}?)` : '';
}
