import type { FieldDeclarations } from './fields.js';
import type { PersonalFields, PersonKey } from './personal-data.js';

/**
 * How a date-windowed list endpoint pages: the ticketing API's style. A new endpoint of
 * this style is a declaration, not code: the paging engine in `src/extract` serves all.
 */
export interface DateWindowPaging {
  readonly style: 'date-window';
  /** First page number; `auto` detects it at run time. */
  readonly pageBase: 0 | 1 | 'auto';
  /** Whether the endpoint refuses requests without dates (they are always sent anyway). */
  readonly datesRequired: boolean;
  /** Largest page the API serves. */
  readonly pageSize: number;
}

/**
 * A zero-based `pageIndex` with a `pageSize` (the run's setting), read until a short or
 * empty page: the engagement API's lists, which carry no count and no paging links.
 */
export interface PageIndexPaging {
  readonly style: 'page-index';
}

/** One request answers everything (a whole list, one object, or one tree). */
export interface SinglePaging {
  readonly style: 'none';
}

export type SnapshotPaging = PageIndexPaging | SinglePaging;

/** What is stored of one raw table: its fields and key. */
export interface TableSpec {
  /** Table name without the source prefix (`tickets`, `user_permissions`). */
  readonly name: string;
  readonly primaryKey: readonly string[];
  /** Key fields that must be present; defaults to the primary key (some key parts may be NULL). */
  readonly requiredKey?: readonly string[];
  /** The field that orders versions of a record (the later wins in the warehouse). */
  readonly cursorField?: string;
  readonly fields: FieldDeclarations;
  /**
   * The fields that hold personal data, by kind (names, contact details, free text about a
   * person): where an access request and an erasure look. Every one is a declared field.
   */
  readonly personal?: PersonalFields;
  /**
   * The fields that say whose a record is (a user's id on a ticket, a profile's on a consent):
   * how an access request or an erasure finds every record of one person. None: the table
   * holds no one's records (match data, campaign apps, consent texts).
   */
  readonly personKeys?: readonly PersonKey[];
}

/** A date-windowed list endpoint (the ticketing API's) and what its items look like. */
export interface ResourceSpec extends TableSpec {
  /** Path below the source's base URL. */
  readonly path: string;
  readonly paging: DateWindowPaging;
}
