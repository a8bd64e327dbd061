import { type DuckDBConnection, DuckDBListValue } from '@duckdb/node-api';
import { queryRows } from '../core/duckdb.js';
import { CODE } from '../core/error-codes.js';
import { FanlakeError, UsageError } from '../core/errors.js';
import { PERSON_SYSTEMS, type PersonSystem } from '../sources/personal-data.js';

/** How a person is named in an access request (and, later, an erasure). */
export const PERSON_IDENTIFIERS = ['email', 'phone', 'record', 'fan-id'] as const;
export type PersonIdentifier = (typeof PERSON_IDENTIFIERS)[number];

export interface PersonQuery {
  readonly by: PersonIdentifier;
  /** An e-mail address, a phone number as people write it, `system:record_id`, or a `fan_id`. */
  readonly value: string;
}

/** One source record identity resolution linked to a fan. */
export interface LinkedRecord {
  readonly system: PersonSystem;
  readonly recordId: string;
  /** `ticketing_user:10001`. */
  readonly recordKey: string;
  /** How the record was linked (`marts.fan_identity_links.match_rule`). */
  readonly matchRule: string;
}

/** The fans an identifier names, with every record of each. Empty when nothing matches. */
export interface FoundPerson {
  readonly fanIds: string[];
  readonly records: LinkedRecord[];
  /**
   * The e-mail addresses the fan's records hold (normalized) and the one asked for, by which
   * tables that carry no record id (campaign participants) are searched.
   */
  readonly emails: string[];
}

/** A record key as `identity explain` writes it; the system must be one of the four. */
export function parseRecordKey(value: string): { system: PersonSystem; recordId: string } {
  const at = value.indexOf(':');
  const system = value.slice(0, at);
  const recordId = value.slice(at + 1);
  if (at < 0 || recordId === '' || !(PERSON_SYSTEMS as readonly string[]).includes(system)) {
    throw new UsageError(`"${value}" is no record key: write system:record_id with system one of ${PERSON_SYSTEMS.join(', ')} (ticketing_user:10001)`);
  }
  return { system: system as PersonSystem, recordId };
}

/**
 * The fans `query` names, through identity resolution as the last build left it: an e-mail or
 * phone number is compared as matching compares them (macros.email_normalized, macros.phone_e164)
 * with every linked record's, a record key or fan id is looked up in marts.fan_identity_links.
 * Every record of every fan found is returned, so a person is taken whole.
 *
 * @throws FanlakeError `E_IDENTITY_NOT_BUILT` when the warehouse has no identity tables yet.
 */
export async function findPerson(connection: DuckDBConnection, query: PersonQuery): Promise<FoundPerson> {
  await requireIdentityTables(connection);
  const fanIds = (await queryRows(connection, `select distinct cast(fan_id as varchar) as fan_id from (${fansOf(query.by)}) order by 1`, queryParams(query))).map((row) =>
    String(row.fan_id),
  );
  if (fanIds.length === 0) return { fanIds, records: [], emails: query.by === 'email' ? [query.value.trim().toLowerCase()] : [] };
  const rows = await queryRows(
    connection,
    `select links.system, links.record_id, links.match_rule, records.email
     from marts.fan_identity_links as links
     left join intermediate.int_identity_records as records
         on records.system = links.system and records.record_id = links.record_id
     where cast(links.fan_id as varchar) in (select unnest($1::varchar[]))
     order by links.system, links.record_id`,
    [new DuckDBListValue(fanIds)],
  );
  const records = rows.map((row) => ({
    system: String(row.system) as PersonSystem,
    recordId: String(row.record_id),
    recordKey: `${String(row.system)}:${String(row.record_id)}`,
    matchRule: String(row.match_rule),
  }));
  const emails = new Set(rows.map((row) => row.email).filter((email): email is string => typeof email === 'string'));
  if (query.by === 'email') emails.add(query.value.trim().toLowerCase());
  return { fanIds, records, emails: [...emails].sort() };
}

/** A query of the fan ids an identifier names; its one parameter is the identifier. */
function fansOf(by: PersonIdentifier): string {
  const linkedRecords = `marts.fan_identity_links as links
     join intermediate.int_identity_records as records
         on records.system = links.system and records.record_id = links.record_id`;
  switch (by) {
    case 'email':
      return `select links.fan_id from ${linkedRecords} where records.email = macros.email_normalized($1)`;
    case 'phone':
      return `select links.fan_id from ${linkedRecords} where records.phone_e164 = macros.phone_e164($1)`;
    case 'record':
      return 'select fan_id from marts.fan_identity_links where system = $1 and record_id = $2';
    case 'fan-id':
      return 'select fan_id from marts.fan_identity_links where cast(fan_id as varchar) = $1';
  }
}

function queryParams(query: PersonQuery): string[] {
  if (query.by !== 'record') return [query.value];
  const { system, recordId } = parseRecordKey(query.value);
  return [system, recordId];
}

async function requireIdentityTables(connection: DuckDBConnection): Promise<void> {
  const [row] = await queryRows(
    connection,
    `select count(*) as n from information_schema.tables
     where table_catalog = current_database() and table_schema || '.' || table_name in ('marts.fan_identity_links', 'intermediate.int_identity_records')`,
  );
  if (Number(row!.n) < 2) {
    throw new FanlakeError(CODE.E_IDENTITY_NOT_BUILT, 'the warehouse has no identity resolution yet (marts.fan_identity_links): run fanlake build first');
  }
}
