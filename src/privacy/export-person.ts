import type { DuckDBConnection, Json } from '@duckdb/node-api';
import { findPerson, type LinkedRecord, type PersonQuery } from './find-person.js';
import { type ModelRows, modelRowsOf, quarantinedOf, type SourceRecord, sourceRecordsOf } from './person-records.js';

/** Raw tables whose records are consents (a ticketing permission answer, an engagement consent). */
const CONSENT_TABLES = ['raw.ticketing_user_permissions', 'raw.engagement_consents'];

/** What fanlake holds about one person: the answer to an access request (`fanlake export-person`). */
export interface PersonExport {
  readonly exportedAt: string;
  readonly identifiedBy: PersonQuery;
  /** The fans identity resolution made of the person (one, unless records were left apart). */
  readonly fanIds: string[];
  /** Every source record linked to those fans, and how each was linked. */
  readonly linkedRecords: LinkedRecord[];
  /** Every raw row of the person in every raw table, whole, with where it came from. */
  readonly sourceRecords: SourceRecord[];
  readonly consents: {
    /** The consent records among `sourceRecords`, with where each came from. */
    readonly records: SourceRecord[];
    /** What they mean now per purpose and channel (intermediate.int_fan_consents). */
    readonly state: Record<string, Json>[];
  };
  /** Rows of intermediate and mart tables keyed by the person's fan ids or record keys. */
  readonly modelRows: ModelRows[];
  /** Quarantined items that hold one of the person's e-mail addresses. */
  readonly quarantined: Record<string, Json>[];
}

/**
 * Everything the warehouse holds about the person `query` names, or `undefined` when it names
 * nobody. Reads only; the caller opens the warehouse read-only.
 */
export async function exportPerson(connection: DuckDBConnection, query: PersonQuery, now = new Date()): Promise<PersonExport | undefined> {
  const person = await findPerson(connection, query);
  if (person.fanIds.length === 0) return undefined;
  const sourceRecords = await sourceRecordsOf(connection, person);
  const modelRows = await modelRowsOf(connection, person);
  return {
    exportedAt: now.toISOString(),
    identifiedBy: query,
    fanIds: person.fanIds,
    linkedRecords: person.records,
    sourceRecords,
    consents: {
      records: sourceRecords.filter((record) => CONSENT_TABLES.includes(record.cameFrom.table)),
      state: modelRows.find((model) => model.relation === 'intermediate.int_fan_consents')?.rows ?? [],
    },
    modelRows,
    quarantined: await quarantinedOf(connection, person),
  };
}
