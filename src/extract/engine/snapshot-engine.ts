import { redact } from '../../core/secrets.js';
import { type ErrorRecord, toErrorRecord } from '../../core/error-record.js';
import { type SourceConnection, endpointUrl } from '../../sources/connection.js';
import { type ChildRequest, type EndpointDeclaration, type Json, type QueryValue, asArray, childName, tablesOf } from '../../sources/endpoint-declaration.js';
import { type HttpClient, HttpError } from '../http/index.js';
import type { ExtractProgress } from '../progress.js';
import { MAX_ERRORS_PER_RESOURCE, type ResourceResult, skippedResult } from '../resource-result.js';
import { ResourceSink, type RunContext } from '../resource-sink.js';
import { type PageReader, SNAPSHOT_PAGING } from './paging-strategies.js';
import { planEndpoints } from './plan-endpoints.js';
import { fillPath } from '../../sources/request-target.js';
import { WorkQueue } from './work-queue.js';
import { CODE } from '../../core/error-codes.js';

export interface SnapshotRun<S> extends RunContext {
  readonly connection: SourceConnection;
  readonly client: HttpClient;
  readonly progress: ExtractProgress;
  /** `Accept` header of every request. */
  readonly accept: string;
  readonly pageSize: number;
  readonly concurrency: number;
  /** The source's settings, which the declarations' hooks read. */
  readonly settings: S;
  /** Tables asked for; all when absent. */
  readonly only?: readonly string[];
  /** Complete snapshots keep only what the warehouse lacks, and their keys (see `writeAsDifference`). */
  readonly differences?: boolean;
  /** Tables written whole all the same: the load skipped a difference of them (SnapshotState.markWhole). */
  readonly whole?: ReadonlySet<string>;
}



/** Children queued per fan-out worker before the parent's paging waits: enough to keep every worker busy. */
const QUEUED_CHILDREN_PER_WORKER = 64;

/** Statuses a request accepts as answers besides 2xx, shared by every request (the client only reads them). */
const NOT_FOUND_IS_EMPTY = [404];
const NONE_ACCEPTED: number[] = [];

/** What an endpoint's requests came to: child requests that failed after their retries, the first few as records. */
interface ReadOutcome {
  readonly failedChildren: number;
  readonly errors: ErrorRecord[];
  readonly requests: number;
}

/** A fan-out waiting for its parent's items. */
interface Feed<S> {
  readonly endpoint: EndpointDeclaration<S>;
  readonly queue: WorkQueue<ChildRequest>;
}

/** A table being written: its sink, its progress key, and the fan-outs its items feed. */
interface Table<S> {
  readonly sink: ResourceSink;
  readonly key: string;
  readonly feeds: readonly Feed<S>[];
}

/** Where one endpoint's answers go: its own table, its linked members' (in declaration order), and those of them that feed fan-outs. */
interface Writing<S> {
  readonly own: Table<S>;
  readonly linked: readonly Table<S>[];
  readonly feeding: readonly Table<S>[];
  /** Keys a read by key found gone at the source (`readsByKey`), for the own table's manifest. */
  readonly removed: Record<string, string>[];
}

/** What `get` answers for a read by key of a record the source no longer has. */
const REMOVED = Symbol('removed at the source');

/**
 * Reads every declared endpoint of a snapshot source completely, concurrently. An
 * endpoint and its linked members commit together; a fan-out's requests start as its
 * parent's pages arrive. A child request that still fails after its retries is reported
 * by name while the rest lands (the result is then partial and not a snapshot); a 403
 * means the organization lacks the module, and the endpoint is skipped.
 */
export async function extractSnapshot<S>(run: SnapshotRun<S>, endpoints: readonly EndpointDeclaration<S>[]): Promise<ResourceResult[]> {
  const source = run.connection.source;
  const results: ResourceResult[] = [];
  const plan = planEndpoints(endpoints, run.settings, run.only);
  for (const { endpoint, skipped } of plan) if (skipped) results.push(skippedResult(source, endpoint.name, skipped));
  const running = plan.filter((planned) => !planned.skipped).map((planned) => planned.endpoint);

  // Every fan-out's queue is registered under its parent table before any parent reads.
  const feeds = new Map<string, Feed<S>[]>();
  const queues = new Map<EndpointDeclaration<S>, WorkQueue<ChildRequest>>();
  for (const endpoint of running) {
    const fanOut = endpoint.fanOut;
    if (!fanOut) continue;
    if (fanOut.parent === undefined) {
      queues.set(endpoint, WorkQueue.of(childrenOf(endpoint, undefined, run.settings)));
      continue;
    }
    const queue = new WorkQueue<ChildRequest>();
    queues.set(endpoint, queue);
    feeds.set(fanOut.parent, [...(feeds.get(fanOut.parent) ?? []), { endpoint, queue }]);
  }

  // What every request shares; only the URL and the context differ from one to the next.
  const headers = { authorization: run.connection.authorization, accept: run.accept };
  const credentialHint = run.connection.credentialHint;

  const get = async (endpoint: EndpointDeclaration<S>, path: string, query: Readonly<Record<string, QueryValue>>, page?: number): Promise<unknown> => {
    const response = await run.client.getJson(endpointUrl(run.connection.baseUrl, path, query), {
      headers,
      context: page === undefined ? { source, resource: endpoint.name } : { source, resource: endpoint.name, page },
      credentialHint,
      acceptStatuses: endpoint.notFound === 'empty' ? NOT_FOUND_IS_EMPTY : NONE_ACCEPTED,
    });
    if (response.status !== 404) return response.body;
    // A read by key: only the API's own error answers "no such record"; a proxy's page is a failure.
    if (endpoint.readsByKey) {
      if (isApiError(response.body)) return REMOVED;
      throw notTheApi(source, endpoint.name, path, response.body);
    }
    return undefined;
  };

  const accept = async (table: Table<S>, items: readonly unknown[]) => {
    // Most fan-out answers hold one item or none: an empty page costs no trip through the sink.
    if (items.length > 0) await table.sink.accept(items);
    run.progress.page(table.key, items.length);
    for (const { endpoint, queue } of table.feeds) {
      for (const item of items) {
        if (typeof item !== 'object' || item === null) continue;
        for (const child of childrenOf(endpoint, item as Json, run.settings)) queue.push(child);
      }
    }
  };

  /**
   * A parent waits before it fetches while a fan-out it feeds is far behind (see
   * WorkQueue.room), not after: a page that waited for room once it had arrived was held,
   * parsed, for thousands of child requests, long enough for V8 to copy it to the old
   * generation; now it is taken as soon as it arrives and dies young.
   */
  const room = async (tables: readonly Table<S>[]) => {
    for (const table of tables) for (const { queue } of table.feeds) await queue.room(QUEUED_CHILDREN_PER_WORKER * run.concurrency * 2);
  };

  /** Reads one request target (the endpoint itself, or one child of its fan-out) to its end. */
  const read = (endpoint: EndpointDeclaration<S>, writing: Writing<S>, child?: ChildRequest): Promise<number> => {
    const path = fillPath(endpoint.path, child?.params);
    const query = child?.query ? { ...endpoint.query, ...child.query } : endpoint.query ?? {};
    const inject = child?.inject;
    const { own, linked, feeding } = writing;
    const reader: PageReader = {
      fetch: async (paging, page) => {
        if (feeding.length > 0) await room(feeding);
        const body = await get(endpoint, path, { ...query, ...paging }, page);
        if (body !== REMOVED) return body;
        writing.removed.push(removedKey(endpoint, child));
        return undefined;
      },
      items: (body) => (endpoint.items && child ? endpoint.items(body, child) : asArray(endpoint.itemsKey ? (body as Json | undefined)?.[endpoint.itemsKey] : body)),
      take: async (items, body) => {
        const masked = endpoint.secretFields ? items.map((item) => maskSecrets(item, endpoint.secretFields!)) : items;
        await accept(own, inject ? masked.map((item) => ({ ...inject, ...(item as Json) })) : masked);
        if (linked.length === 0) return;
        const members = ((body as Json | undefined)?.linked ?? {}) as Json;
        for (let k = 0; k < linked.length; k++) await accept(linked[k]!, asArray(members[endpoint.linked![k]!.member]));
      },
    };
    return SNAPSHOT_PAGING[endpoint.paging.style](reader, { pageSize: run.pageSize, wave: run.concurrency });
  };

  /** Runs one child request per queued item, each retried by the client; failures are counted, the first few kept whole. */
  const fanOut = async (endpoint: EndpointDeclaration<S>, writing: Writing<S>): Promise<ReadOutcome> => {
    const queue = queues.get(endpoint)!;
    const errors: ErrorRecord[] = [];
    let failedChildren = 0;
    let requests = 0;
    // A fixed set of workers pulls the children: no promise per child up front, so a
    // fan-out over 150,000 profiles costs as little memory as one over 15.
    const worker = async () => {
      for (let child = await queue.next(); child !== undefined; child = await queue.next()) {
        try {
          // Not `requests += await ...`: that reads the total before the await and loses the other workers' counts.
          const spent = await read(endpoint, writing, child);
          requests += spent;
        } catch (error) {
          if (error instanceof HttpError && error.status === 403) throw error;
          failedChildren += 1;
          if (errors.length < MAX_ERRORS_PER_RESOURCE) errors.push(toErrorRecord(error, { source, resource: endpoint.name, childId: childName(child) }));
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: run.concurrency * 2 }, worker));
    } finally {
      // Workers that stopped early (a 403) must not leave the parent waiting for room.
      queue.abandon();
    }
    return { failedChildren, errors, requests };
  };

  const extract = async (endpoint: EndpointDeclaration<S>): Promise<void> => {
    const started = performance.now();
    const tables = tablesOf(endpoint);
    const opened = tables.map((table): Table<S> => ({
      sink: new ResourceSink(run, { source, ...table }, { dedupe: 'dedupe' in table && table.dedupe === true }),
      key: `${source}.${table.name}`,
      feeds: feeds.get(table.name) ?? [],
    }));
    const writing: Writing<S> = { own: opened[0]!, linked: opened.slice(1), feeding: opened.filter((table) => table.feeds.length > 0), removed: [] };
    const fed = opened.flatMap((table) => table.feeds);
    let fedClosed = false;
    for (const table of tables) run.progress.started(`${source}.${table.name}`);
    const finish = (name: string, result: Omit<ResourceResult, 'source' | 'resource' | 'seconds' | 'retries'>) => {
      const full: ResourceResult = { source, resource: name, seconds: (performance.now() - started) / 1000, retries: run.progress.retriesOf(`${source}.${name}`), ...result };
      run.progress.finished(`${source}.${name}`, full);
      results.push(full);
    };
    try {
      const outcome = endpoint.fanOut ? await fanOut(endpoint, writing) : { failedChildren: 0, errors: [], requests: await read(endpoint, writing) };
      // The fan-outs this endpoint feeds may finish while it commits.
      for (const { queue } of fed) queue.close();
      fedClosed = true;
      const { failedChildren } = outcome;
      const snapshot = failedChildren === 0 && !endpoint.readsSubset;
      for (const { sink } of opened) {
        const name = sink.spec.name;
        const own = name === endpoint.name;
        const written = await sink.commit({ snapshot, asDifference: run.differences && !run.whole?.has(name), removed: own ? writing.removed : undefined });
        const notes = [
          ...(failedChildren === 0 ? [] : [own ? `${failedChildren} child requests failed after retries${failedChildren > outcome.errors.length ? `; the first ${outcome.errors.length} are listed` : ''}` : `read with ${endpoint.name}, whose child requests failed`]),
          ...(written.quarantined > 0 ? [`${written.quarantined} records quarantined (see ${sink.dir}/quarantine.ndjson)`] : []),
          ...(own && writing.removed.length > 0 ? [`${writing.removed.length} record${writing.removed.length === 1 ? '' : 's'} read by key no longer at the source (404): flagged vanished by the load`] : []),
        ];
        finish(name, { status: failedChildren === 0 ? 'ok' : 'partial', rows: written.rows, files: written.files.length, quarantined: written.quarantined, requests: own ? outcome.requests : 0, errors: own ? outcome.errors : [], notes });
      }
    } catch (error) {
      if (!fedClosed) for (const { queue } of fed) queue.fail(error);
      await Promise.all(opened.map(({ sink }) => sink.abort()));
      const empty = { rows: 0, files: 0, quarantined: 0, requests: 0 };
      if (error instanceof HttpError && error.status === 403) {
        const why = `not enabled for this organization (the API answered 403${endpoint.module ? `; module ${endpoint.module}` : ''})`;
        for (const table of tables) finish(table.name, { status: 'skipped', ...empty, errors: [], notes: [why] });
        return;
      }
      const record = toErrorRecord(error, { source, resource: endpoint.name });
      for (const table of tables) {
        const own = table.name === endpoint.name;
        finish(table.name, { status: 'failed', ...empty, errors: own ? [record] : [], notes: own ? [] : [`not read: ${endpoint.name} failed`] });
      }
    }
  };

  await Promise.all(running.map((endpoint) => extract(endpoint)));
  return results;
}

/**
 * The API's own error answer, `{ "message": "..." }` sent as JSON (documented for both APIs,
 * and what the simulator sends); a proxy's or gateway's 404 page is text or HTML.
 */
function isApiError(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && typeof (body as Json).message === 'string';
}

function notTheApi(source: string, resource: string, path: string, body: unknown): HttpError {
  const excerpt = typeof body === 'string' ? body.replace(/\s+/g, ' ').trim().slice(0, 200) : JSON.stringify(body)?.slice(0, 200);
  return new HttpError(CODE.E_HTTP_STATUS, `GET ${redact(path)} answered 404 Not Found without the API's error body, so it does not say the record is gone${excerpt ? `: ${excerpt}` : ''}`, {
    context: { source, resource, url: redact(path), status: 404 },
  });
}

/** The primary key of the record a read by key asked for, as a manifest's `removed` holds it (the placeholder is the key). */
function removedKey<S>(endpoint: EndpointDeclaration<S>, child: ChildRequest | undefined): Record<string, string> {
  return { [endpoint.primaryKey[0]!]: String(child?.params?.[endpoint.byKey!.key]) };
}

/** An item with known secrets masked in the named text fields. */
function maskSecrets(item: unknown, fields: readonly string[]): unknown {
  if (typeof item !== 'object' || item === null) return item;
  const masked = { ...(item as Json) };
  for (const field of fields) if (typeof masked[field] === 'string') masked[field] = redact(masked[field] as string);
  return masked;
}

/** The child requests of one parent item (or, without a parent, of the run). */
function childrenOf<S>(endpoint: EndpointDeclaration<S>, parent: Json | undefined, settings: S): readonly ChildRequest[] {
  const fanOut = endpoint.fanOut!;
  if (fanOut.children) return fanOut.children(parent, settings);
  if (!parent || !fanOut.key || (fanOut.when && !fanOut.when(parent, settings))) return [];
  const value = parent[fanOut.key];
  if (value === undefined || value === null) return [];
  return [{ params: { [fanOut.key]: String(value) }, label: fanOut.label ?? `${fanOut.key} {${fanOut.key}}` }];
}
