import type { SnapshotPaging, TableSpec } from './resource-spec.js';

export type Json = Record<string, unknown>;
export type QueryValue = string | number | undefined;

/**
 * One request of a fan-out: what fills the path's placeholders, the query it adds, and
 * the columns the request itself implies (the board a top position belongs to).
 */
export interface ChildRequest {
  /** Values of the path's `{placeholders}`, URL-encoded when the path is filled. */
  readonly params?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, QueryValue>>;
  /** Added to every item of the answer; a field the item has itself wins. */
  readonly inject?: Json;
  /**
   * How a child that still fails after its retries is named in the result: a template
   * whose `{name}`s are filled from its params, query and injected columns (`-` when
   * absent), so a queue of many children holds no string of its own per child.
   */
  readonly label: string;
}

/**
 * One request per parent item (or per configured value). Plain data covers the common
 * case (`key`, `when`, `label`); a `children` hook covers requests data cannot describe.
 */
export interface FanOut<S> {
  /** The table whose items feed it as they arrive (a linked member's table too); absent: `children` reads the settings alone. */
  readonly parent?: string;
  /** The parent's field whose value fills the path placeholder of the same name. */
  readonly key?: string;
  /** Which parent items get a request; every one when absent. */
  readonly when?: (parent: Json, settings: S) => boolean;
  /** A failed child's name, a template like `ChildRequest.label`: `identity {id}`. */
  readonly label?: string;
  /** Hook: the requests for one parent item (or, without a parent, for the run). */
  readonly children?: (parent: Json | undefined, settings: S) => readonly ChildRequest[];
}

/** A member of the response's `linked` object, split into its own table and committed with the endpoint's. */
export interface LinkedMember extends TableSpec {
  /** Key under `linked` (`people`, `consentTexts`). */
  readonly member: string;
  /** Repeated in many responses (consent texts): written once per run. */
  readonly dedupe?: boolean;
}

/**
 * An endpoint of a snapshot source (engagement): everything the engine needs to read it
 * completely into its raw tables. `S` is the source's settings, which hooks may read.
 */
export interface EndpointDeclaration<S> extends TableSpec {
  /** Path below the source's base URL, with `{placeholders}` a fan-out fills. */
  readonly path: string;
  readonly paging: SnapshotPaging;
  /** Where the items are in the body; absent: the body is the list, or the one item. */
  readonly itemsKey?: string;
  /** Query parameters sent with every request. */
  readonly query?: Readonly<Record<string, string>>;
  /** Hook: the items of a body when a key cannot say (a context tree flattened). */
  readonly items?: (body: unknown, child: ChildRequest) => unknown[];
  readonly linked?: readonly LinkedMember[];
  /** The module a 403 says the organization lacks: the resource is skipped, not failed. */
  readonly module?: string;
  /** What a 404 means: `empty`, nothing here (documented answers such as "no season"); `error`, a failure. */
  readonly notFound: 'empty' | 'error';
  readonly fanOut?: FanOut<S>;
  /**
   * How one record is read by its key, when the API has a single-record path: a run that
   * knows which records changed (a push subscription) reads those instead of the list.
   */
  readonly byKey?: {
    /** Path with the key's placeholder, e.g. `/customerprofiles/{id}`. */
    readonly path: string;
    /** The placeholder's name. */
    readonly key: string;
    /** A failed read's name, a template like `ChildRequest.label`: `profile {id}`. */
    readonly label: string;
  };
  /**
   * Set on an endpoint rewritten to read only some records (changed ones, or the children of
   * those): its output is never a snapshot, so a missing key there says nothing.
   */
  readonly readsSubset?: boolean;
  /**
   * Set on an endpoint rewritten to read records one by one through `byKey.path`: a 404 in
   * the API's own error shape then means the source no longer has that record, and the run
   * names its key as removed (docs/decisions.md, "A deletion seen by a re-read").
   */
  readonly readsByKey?: boolean;
  /**
   * Fields whose values may carry one of fanlake's own secrets (the callback URL of the
   * receiver's push subscription holds its path token): known secrets are masked in them
   * before they are stored, as in everything fanlake writes.
   */
  readonly secretFields?: readonly string[];
  /** Hook: why the endpoint is left off with these settings (an opt-in, a missing list); undefined when it runs. */
  readonly skip?: (settings: S) => string | undefined;
}

/** Every table an endpoint writes: its own, then its linked members'. */
export function tablesOf<S>(declaration: EndpointDeclaration<S>): TableSpec[] {
  return [declaration, ...(declaration.linked ?? [])];
}

/** A value as a list: arrays as they are, nothing as none, anything else as one item. */
export function asArray(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  return value === undefined || value === null ? [] : [value];
}

/** A child's label with its `{name}`s filled in. */
export function childName(child: ChildRequest): string {
  const values: Record<string, unknown> = { ...child.inject, ...child.query, ...child.params };
  return child.label.replace(/\{(\w+)\}/g, (_placeholder, name: string) => (values[name] === undefined || values[name] === null ? '-' : String(values[name])));
}
