import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBListValue } from '@duckdb/node-api';
import { queryRows, quoteLiteral } from '../core/duckdb.js';
import { discoverRuns } from '../load/discover-runs.js';
import { rawPersonalColumns, rawTables } from '../sources/raw-personal-columns.js';
import { tableColumns } from '../warehouse/warehouse.js';
import { ensureBookkeeping } from '../warehouse/bookkeeping.js';
import { recordRawErasure } from '../warehouse/changed-keys.js';
import { eraseFromRawRuns, type RawRunErasure } from './erase-raw-runs.js';
import { findPerson, type FoundPerson, type PersonQuery } from './find-person.js';
import { personCondition, personSelection, quarantinedOf, type SourceRecord, sourceRecordsOf } from './person-records.js';

/** What `fanlake forget` found of a person, and why each record is theirs. */
export interface ForgetPlan {
  readonly person: FoundPerson;
  /** Every raw row of the person (`whose` says why). */
  readonly sourceRecords: SourceRecord[];
  /** Items of `meta.quarantined_records` that hold one of their addresses or numbers. */
  readonly quarantined: number;
  /** Their phone numbers in E.164, as matching compares them. */
  readonly phones: string[];
  /**
   * Every e-mail address and phone number of the person as the sources wrote them (and
   * normalized): the text by which quarantine lines, `meta` rows and renderings are known.
   */
  readonly needles: string[];
}

/** The person `query` names and every record of theirs; `undefined` when it names nobody. Reads only. */
export async function planForget(connection: DuckDBConnection, query: PersonQuery): Promise<ForgetPlan | undefined> {
  const person = await findPerson(connection, query);
  if (person.fanIds.length === 0) return undefined;
  const sourceRecords = await sourceRecordsOf(connection, person);
  const keys = person.records.map((record) => record.recordKey);
  const phones = (
    await queryRows(
      connection,
      `select distinct phone_e164 from intermediate.int_identity_records
       where phone_e164 is not null and system || ':' || record_id in (select unnest($1::varchar[]))`,
      [new DuckDBListValue(keys)],
    )
  ).map((row) => String(row.phone_e164));
  const written = new Set<string>([...person.emails, ...phones]);
  const kinds = new Map(rawPersonalColumns().map((column) => [`${column.relation}.${column.column}`, column.kind]));
  for (const record of sourceRecords) {
    for (const [column, value] of Object.entries(record.row)) {
      const kind = kinds.get(`${record.cameFrom.table}.${column}`);
      if ((kind === 'email' || kind === 'phone') && typeof value === 'string' && value.trim().length >= 5) written.add(value.trim());
    }
  }
  const needles = [...written].sort();
  const quarantined = (await quarantinedOf(connection, { ...person, emails: needles.map((needle) => needle.toLowerCase()) })).length;
  return { person, sourceRecords, quarantined, phones, needles };
}

/** Removes the person's rows from every complete raw run on disk (files, manifests, quarantine lines). */
export async function eraseFromRawLayer(connection: DuckDBConnection, dataDir: string, plan: ForgetPlan): Promise<RawRunErasure> {
  const selection = personSelection(plan.person);
  return eraseFromRawRuns(
    connection,
    dataDir,
    await discoverRuns(dataDir),
    (manifest, columns) => {
      const table = rawTables().find(({ source, spec }) => source === manifest.source && spec.name === manifest.resource);
      return table && personCondition(table.spec.personKeys, columns, selection);
    },
    plan.needles,
  );
}

/**
 * Deletes the person's rows from the raw tables and the quarantined items that name them
 * from `meta.quarantined_records`, in one transaction. Models are rebuilt after by the caller.
 * Returns the rows deleted by relation.
 */
export async function eraseFromWarehouse(connection: DuckDBConnection, plan: ForgetPlan): Promise<Map<string, number>> {
  const selection = personSelection(plan.person);
  const deleted = new Map<string, number>();
  await ensureBookkeeping(connection);
  await connection.run('begin transaction');
  try {
    for (const { relation, spec } of rawTables()) {
      const [schema, table] = relation.split('.') as [string, string];
      const columns = await tableColumns(connection, schema, table);
      if (columns === undefined) continue;
      const condition = personCondition(spec.personKeys, [...columns.keys()], selection);
      if (condition === undefined) continue;
      const result = await connection.run(`delete from ${relation} where ${condition}`);
      if (result.rowsChanged > 0) {
        deleted.set(relation, result.rowsChanged);
        // a check must not carry the tests of what the table held before
        await recordRawErasure(connection, relation);
      }
    }
    if ((await tableColumns(connection, 'meta', 'quarantined_records')) !== undefined && plan.needles.length > 0) {
      const matches = plan.needles.map((needle) => `contains(lower(cast(item as varchar)), ${quoteLiteral(needle.toLowerCase())})`).join(' or ');
      const result = await connection.run(`delete from meta.quarantined_records where ${matches}`);
      if (result.rowsChanged > 0) deleted.set('meta.quarantined_records', result.rowsChanged);
    }
    await connection.run('commit');
  } catch (error) {
    await connection.run('rollback').catch(() => undefined);
    throw error;
  }
  return deleted;
}

/**
 * Deletes every file under `folder` (renderings of reports) holding one of the needles, as
 * bytes, compared case-insensitively. Returns the files deleted.
 */
export async function eraseRenderings(folder: string, needles: readonly string[]): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(folder, { withFileTypes: true, recursive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const lowered = needles.map((needle) => needle.toLowerCase());
  const deleted: string[] = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const text = (await readFile(path, 'latin1')).toLowerCase();
    if (lowered.some((needle) => text.includes(needle))) {
      await rm(path, { force: true });
      deleted.push(path);
    }
  }
  return deleted;
}
