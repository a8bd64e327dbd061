import type { DuckDBConnection, Json } from '@duckdb/node-api';
import { queryRows, quoteIdent, quoteLiteral } from '../core/duckdb.js';
import { rawTables } from '../sources/raw-personal-columns.js';
import { findBookkeeping } from '../warehouse/bookkeeping.js';
import type { PersonKey } from '../sources/personal-data.js';
import type { FoundPerson } from './find-person.js';

type Row = Record<string, Json>;

/** Where a raw record came from: its source, table and key, and the run and load that brought it. */
export interface Provenance {
  readonly source: 'ticketing' | 'engagement';
  readonly table: string;
  /** The record's primary key, field by field. */
  readonly key: Row;
  readonly runId: string | null;
  readonly extractedAt: string | null;
  /** When `load` merged that run (meta.load_ledger); null when the ledger does not say. */
  readonly loadedAt: string | null;
  /** Set when a complete snapshot no longer had the record. */
  readonly vanishedAt?: string | null;
}

/** One raw row of the person, whole, with why it is theirs. */
export interface SourceRecord {
  readonly cameFrom: Provenance;
  /** The fields that tie it to the person: `user_held_id = ticketing_user:10001`. */
  readonly whose: string[];
  readonly row: Row;
}

/** Rows of one model keyed by the person's fan ids or record keys. */
export interface ModelRows {
  readonly relation: string;
  readonly rows: Row[];
}

/**
 * Columns that key a model's rows to a person: a fan id, or a record key (`system:record_id`)
 * of one record or of either side of a pair.
 */
const FAN_COLUMNS = ['fan_id'];
const RECORD_KEY_COLUMNS = ['record_key', 'from_key', 'to_key', 'record_a', 'record_b'];

/** The columns of every table and view of the given schemas, by relation. */
async function columnsBySchema(connection: DuckDBConnection, schemas: readonly string[]): Promise<Map<string, string[]>> {
  const rows = await queryRows(
    connection,
    `select table_schema || '.' || table_name as relation, column_name from information_schema.columns
     where table_catalog = current_database() and table_schema in (${schemas.map(quoteLiteral).join(', ')})
     order by relation, ordinal_position`,
  );
  const columns = new Map<string, string[]>();
  for (const row of rows) columns.set(String(row.relation), [...(columns.get(String(row.relation)) ?? []), String(row.column_name)]);
  return columns;
}

const inList = (values: Iterable<string>) => `(${[...values].map(quoteLiteral).join(', ')})`;

/**
 * Every raw row of the person: for each raw table the warehouse has, the rows whose person keys
 * (`TableSpec.personKeys`) name one of the person's records, or, for a table keyed by e-mail,
 * one of their addresses. All columns, as loaded.
 */
export async function sourceRecordsOf(connection: DuckDBConnection, person: FoundPerson): Promise<SourceRecord[]> {
  const columns = await columnsBySchema(connection, ['raw']);
  const loadedAt = await loadTimes(connection);
  const selection = personSelection(person);
  const valuesOf = (refersTo: string) => selectedValues(selection, refersTo);
  const found: SourceRecord[] = [];
  for (const { relation, source, spec } of rawTables()) {
    const present = columns.get(relation);
    if (!present) continue;
    const keys = (spec.personKeys ?? []).filter((key) => present.includes(key.field));
    const condition = personCondition(spec.personKeys, present, selection);
    if (condition === undefined) continue;
    const rows = await queryRows(connection, `select * from ${relation} where ${condition} order by all`);
    for (const row of rows) {
      const whose = keys.flatMap((key) => {
        const value = row[key.field];
        if (value === null || value === undefined) return [];
        const text = key.refersTo === 'email' ? String(value).trim().toLowerCase() : String(value);
        return valuesOf(key.refersTo).has(text) ? [`${key.field} = ${key.refersTo === 'email' ? 'e-mail' : key.refersTo}:${text}`] : [];
      });
      const runId = typeof row._run_id === 'string' ? row._run_id : null;
      found.push({
        cameFrom: {
          source,
          table: relation,
          key: Object.fromEntries(spec.primaryKey.map((field) => [field, row[field] ?? null])),
          runId,
          extractedAt: row._extracted_at === undefined ? null : (row._extracted_at as string | null),
          loadedAt: (runId && loadedAt.get(`${source}/${spec.name}/${runId}`)) ?? null,
          ...('_vanished_at' in row ? { vanishedAt: row._vanished_at as string | null } : {}),
        },
        whose,
        row,
      });
    }
  }
  return found;
}

/** The record ids (by identity system) and e-mail addresses (normalized) whose rows are a person's. */
export interface PersonSelection {
  readonly idsBySystem: ReadonlyMap<string, ReadonlySet<string>>;
  readonly emails: ReadonlySet<string>;
}

export function personSelection(person: Pick<FoundPerson, 'records' | 'emails'>): PersonSelection {
  const idsBySystem = new Map<string, Set<string>>();
  for (const record of person.records) idsBySystem.set(record.system, (idsBySystem.get(record.system) ?? new Set()).add(record.recordId));
  return { idsBySystem, emails: new Set(person.emails) };
}

const selectedValues = (selection: PersonSelection, refersTo: string): ReadonlySet<string> =>
  refersTo === 'email' ? selection.emails : (selection.idsBySystem.get(refersTo) ?? new Set<string>());

/**
 * The SQL condition that holds for a row of a raw table (or of its Parquet files) whose person
 * keys (`TableSpec.personKeys`) name one of the selected records or addresses; `undefined` when
 * none of its columns can. `present` are the columns the rows have. Shared by access
 * (export-person) and erasure (forget, tombstones), so both take the same rows.
 */
export function personCondition(personKeys: readonly PersonKey[] | undefined, present: readonly string[], selection: PersonSelection): string | undefined {
  const valuesOf = (refersTo: string) => selectedValues(selection, refersTo);
  const conditions = (personKeys ?? [])
    .filter((key) => present.includes(key.field) && valuesOf(key.refersTo).size > 0)
    .map((key) => {
      const value = `cast(${quoteIdent(key.field)} as varchar)`;
      return `coalesce(${key.refersTo === 'email' ? `lower(trim(${value}))` : value} in ${inList(valuesOf(key.refersTo))}, false)`;
    });
  return conditions.length === 0 ? undefined : `(${conditions.join(' or ')})`;
}

/** When each resource-run was loaded, by `source/resource/run id`. */
async function loadTimes(connection: DuckDBConnection): Promise<Map<string, string>> {
  const ledger = await findBookkeeping(connection, 'load_ledger');
  if (ledger === undefined) return new Map();
  const rows = await queryRows(connection, `select source, resource, run_id, loaded_at::varchar as loaded_at from ${ledger}`);
  return new Map(rows.map((row) => [`${String(row.source)}/${String(row.resource)}/${String(row.run_id)}`, String(row.loaded_at)]));
}

/**
 * The rows of every intermediate and mart table or view keyed by the person: by `fan_id`, or by
 * a record key (`record_key`, either side of a pair). Staging views are left out: they are the
 * raw rows again, renamed.
 */
export async function modelRowsOf(connection: DuckDBConnection, person: FoundPerson): Promise<ModelRows[]> {
  const columns = await columnsBySchema(connection, ['intermediate', 'marts']);
  const recordKeys = person.records.map((record) => record.recordKey);
  const found: ModelRows[] = [];
  for (const [relation, names] of columns) {
    const conditions = [
      ...names.filter((name) => FAN_COLUMNS.includes(name) && person.fanIds.length > 0).map((name) => `cast(${quoteIdent(name)} as varchar) in ${inList(person.fanIds)}`),
      ...names.filter((name) => RECORD_KEY_COLUMNS.includes(name) && recordKeys.length > 0).map((name) => `cast(${quoteIdent(name)} as varchar) in ${inList(recordKeys)}`),
    ];
    if (conditions.length === 0) continue;
    const qualified = relation.split('.').map(quoteIdent).join('.');
    const rows = await queryRows(connection, `select * from ${qualified} where ${conditions.join(' or ')} order by all`);
    if (rows.length > 0) found.push({ relation, rows });
  }
  return found;
}

/**
 * Items quarantined by a loaded run (meta.quarantined_records) that hold one of the person's
 * e-mail addresses: an item that failed validation cannot be trusted to have its id fields, so
 * it is found by the text it holds.
 */
export async function quarantinedOf(connection: DuckDBConnection, person: FoundPerson): Promise<Row[]> {
  if (person.emails.length === 0) return [];
  const [exists] = await queryRows(
    connection,
    "select count(*) as n from information_schema.tables where table_catalog = current_database() and table_schema = 'meta' and table_name = 'quarantined_records'",
  );
  if (Number(exists!.n) === 0) return [];
  const matches = person.emails.map((email) => `contains(lower(cast(item as varchar)), ${quoteLiteral(email)})`).join(' or ');
  return queryRows(connection, `select * from meta.quarantined_records where ${matches} order by all`);
}
