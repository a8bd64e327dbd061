import type { FieldDeclarations } from './fields.js';

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

/** A list endpoint of a source and what its items look like. */
export interface ResourceSpec {
  /** Table name without the source prefix (`tickets`, `user_permissions`). */
  readonly name: string;
  /** Path below the source's base URL. */
  readonly path: string;
  readonly paging: DateWindowPaging;
  readonly primaryKey: readonly string[];
  /** The field that orders versions of a record (the later wins in the warehouse). */
  readonly cursorField?: string;
  readonly fields: FieldDeclarations;
}
