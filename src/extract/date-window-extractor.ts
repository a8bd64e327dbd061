import type { LimitFunction } from 'p-limit';
import * as z from 'zod';
import { type ErrorRecord, toErrorRecord } from '../core/error-record.js';
import { FanlakeError } from '../core/errors.js';
import { type DecodedBody, decodeBody, type HttpClient, isJsonContentType } from './http/index.js';
import { type SourceConnection, endpointUrl } from '../sources/connection.js';
import type { ResourceSpec } from '../sources/resource-spec.js';
import { type DateWindow, describeWindow, splitRange } from './paging/date-window.js';
import { detectPageBase } from './paging/detect-page-base.js';
import { type WindowOutcome, type WindowPage, pageWindow } from './paging/window-pager.js';
import type { ExtractProgress } from './progress.js';
import { MAX_ERRORS_PER_RESOURCE, type ResourceResult } from './resource-result.js';
import { primaryKeyOf, ResourceSink, type RunContext } from './resource-sink.js';
import { rawArrayItems } from './spool/raw-items.js';
import { ScannedPage } from './spool/page-scanner.js';
import type { SourceState } from './state.js';
import { CODE } from '../core/error-codes.js';

/**
 * How large a Parquet part grows. The last part of the last resource converts after the last
 * response, so its size is the run's tail: smaller parts end a run sooner.
 *
 * A DuckDB kept for the run holds the working set of its largest conversion, which grows with
 * the part's bytes, so its parts end at a size in bytes of spooled JSON (about 16,000 wide
 * ticket rows) or at the sink's 100,000 rows, which bounds the extract's peak memory. Parts are
 * not made smaller still: many small parts make the load and the extract slower. Counting
 * bytes rather than rows also keeps narrow resources (permission answers) in few files.
 *
 * A DuckDB opened per part pays its opening and its memory faulted in again for every part,
 * so its parts are counted in rows and larger.
 */
const PARTS = {
  kept: { bytesPerPart: 28 * 1024 * 1024 },
  perPart: { rowsPerPart: 25_000 },
} as const;

/** The list envelope of the ticketing API: counts and pages arrive as strings. */
const Envelope = z.object({
  count: z.union([z.string().regex(/^\d+$/), z.number().int().nonnegative()]).transform(Number),
  page: z.union([z.string(), z.number()]).optional(),
  items: z.array(z.unknown()),
});

/** A page of a date-windowed list: scanned from its bytes, or parsed whole with its items' bytes beside. */
interface TicketingPage extends WindowPage {
  readonly scanned?: ScannedPage;
  readonly items?: readonly unknown[];
  /** Each item's bytes as received, when they could be told apart (see rawArrayItems). */
  readonly raw?: readonly Buffer[];
}

export interface DateWindowRun extends RunContext {
  readonly connection: SourceConnection;
  readonly client: HttpClient;
  readonly state: SourceState;
  readonly progress: ExtractProgress;
  readonly fullRefresh: boolean;
  /** Where a first or full-refresh run starts. */
  readonly startDate: Date;
  readonly lookbackMinutes: number;
  readonly maxWindowDays: number;
  /** Requests in flight per source; also the pages of one window fetched at once. */
  readonly concurrency: number;
  /** Bounds the pages fetched but not yet written, across the source's resources. */
  readonly pageSlots: LimitFunction;
  /** Overrides an `auto` page base. */
  readonly pageBaseOverride?: 0 | 1;
}

/**
 * Extracts one date-windowed resource: from its stored position (or the start date) up to
 * just before the run started, in windows under the API's 3-year cap, each read
 * completely (see `pageWindow`), into Parquet; then the manifest, then the state.
 */
export async function extractDateWindowResource(run: DateWindowRun, spec: ResourceSpec): Promise<ResourceResult> {
  const started = performance.now();
  const key = `${run.connection.source}.${spec.name}`;
  const { paging } = spec;
  const prior = run.fullRefresh ? undefined : run.state.get(spec.name);
  const from = prior ? Math.floor(Date.parse(prior.completeThrough) / 1000) - run.lookbackMinutes * 60 : Math.floor(run.startDate.getTime() / 1000);
  // The last whole second strictly before the run began: anything changed while the run
  // pages lands after date_end, so windows can only lose records, never gain them (see
  // pageWindow). Records changed in the run's first fraction of a second are left to the
  // next run, which starts from here minus the lookback.
  const to = Math.floor((run.runStartedAt.getTime() - 1) / 1000);
  const windows = splitRange(Math.min(from, to), to, run.maxWindowDays * 86_400);
  const cursor = spec.cursorField;
  const itemKey = (item: unknown) => primaryKeyOf(item, spec.primaryKey);
  const cursorSecond = (item: unknown) => {
    const value = cursor && isRecord(item) ? item[cursor] : undefined;
    const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
    return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
  };

  const where = { source: run.connection.source, resource: spec.name };
  const sink = new ResourceSink(run, { source: run.connection.source, ...spec }, run.duckdb ? PARTS.kept : PARTS.perPart);
  // Page bodies are read by the sink's scanner; one it cannot read is parsed whole.
  const scanOrParse = (buffer: Buffer, contentType: string | string[] | undefined, status: number): DecodedBody => {
    const scanned = status === 200 && isJsonContentType(contentType) ? sink.scan(buffer) : undefined;
    return scanned ? { ok: true, value: scanned } : decodeBody(buffer, contentType, status);
  };
  // One object for every request: the client builds its headers from it once.
  const headers = { authorization: run.connection.authorization, accept: 'application/json' };
  let requests = 0;
  const fetchPage = async (window: DateWindow, page: number, size = paging.pageSize, scan = true): Promise<TicketingPage> => {
    requests++;
    const url = endpointUrl(run.connection.baseUrl, spec.path, { date_init: window.from, date_end: window.to, count_elements: size, page, order: 'ASC' });
    const context = { source: run.connection.source, resource: spec.name, window: describeWindow(window), page };
    const response = await run.client.getJson(url, {
      headers,
      context,
      credentialHint: run.connection.credentialHint,
      decode: scan ? scanOrParse : undefined,
    });
    if (response.body instanceof ScannedPage) {
      const scanned = response.body;
      return { count: scanned.count, size: scanned.size, first: scanned.size > 0 ? scanned.parse(0) : undefined, scanned };
    }
    const envelope = Envelope.safeParse(response.body);
    if (!envelope.success) {
      throw new FanlakeError(CODE.E_BAD_ENVELOPE, `${spec.path} answered without the documented count/page/items envelope (window ${context.window}, page ${page})`, { context });
    }
    const { count, items } = envelope.data;
    return { count, size: items.length, first: items[0], items, raw: rawArrayItems(response.raw, 'items', items.length) };
  };
  // The page base is told by every item's key of two tiny pages: those are parsed whole.
  const fetchItems = async (window: DateWindow, page: number, size: number) => {
    const fetched = await fetchPage(window, page, size, false);
    return { count: fetched.count, items: fetched.items ?? [] };
  };

  run.progress.started(key);
  const counted = new Set<DateWindow>();
  const onPage = async (page: TicketingPage, window: DateWindow) => {
    const { count, size } = page;
    await (page.scanned ? sink.acceptScanned(page.scanned) : sink.accept(page.items ?? [], page.raw));
    // The first count of each planned window adds up to the total the ETA aims at.
    const planned = windows.includes(window) && !counted.has(window);
    counted.add(window);
    run.progress.page(key, size, planned ? count : 0);
  };

  try {
    const pageBase = paging.pageBase === 'auto' ? run.pageBaseOverride ?? (await detectPageBase(windows, fetchItems, itemKey)) : paging.pageBase;
    const options = { fetchPage, onPage, cursorSecond, itemKey, pageBase, pageSize: paging.pageSize, schedule: run.pageSlots, pagesInFlight: run.concurrency };
    const settled = await Promise.allSettled(windows.map((window) => pageWindow(window, options)));
    const outcomes = settled.flatMap((s) => (s.status === 'fulfilled' ? s.value : []));
    const failed = windows.filter((_, k) => settled[k]!.status === 'rejected');
    const errors = settled.flatMap((s, k) => (s.status === 'rejected' ? [toErrorRecord(s.reason, { ...where, window: describeWindow(windows[k]!) })] : []));
    if (failed.length === windows.length && windows.length > 0) {
      await sink.abort();
      return result('failed', 0, 0, 0, errors, []);
    }

    const written = await sink.commit({
      snapshot: false,
      windows: outcomes.map((o) => ({ ...o.window, complete: o.complete, requests: o.requests })),
    });
    const incomplete = outcomes.filter((outcome) => !outcome.complete).map((o) => o.window);
    const notes = incomplete.map((w) => `window ${describeWindow(w)} kept changing while it was read; it will be read again next run`);
    const unstable = outcomes.reduce((sum, o) => sum + o.unstablePasses, 0);
    if (unstable > 0) notes.push(`${unstable} window passes saw records change and were re-read in smaller windows`);
    if (written.quarantined > 0) notes.push(`${written.quarantined} records quarantined (see ${sink.dir}/quarantine.ndjson)`);
    // State may only claim what is complete: up to the first window that failed or kept changing.
    const gaps = [...failed, ...incomplete];
    const completeThrough = gaps.length > 0 ? Math.min(...gaps.map((w) => w.from)) : to;
    const finishedAt = new Date().toISOString();
    const prevThrough = prior ? Math.floor(Date.parse(prior.completeThrough) / 1000) : undefined;
    if (prevThrough === undefined || completeThrough > prevThrough || run.fullRefresh) {
      await run.state.advance(spec.name, {
        completeThrough: new Date(completeThrough * 1000).toISOString(),
        highWaterMark: sink.highWaterMark ?? prior?.highWaterMark,
        lastRunId: run.runId,
        updatedAt: finishedAt,
      });
    }
    return result(failed.length > 0 ? 'partial' : 'ok', written.rows, written.files.length, written.quarantined, errors, notes);
  } catch (error) {
    await sink.abort();
    return result('failed', 0, 0, 0, [toErrorRecord(error, where)], []);
  }

  function result(status: ResourceResult['status'], rows: number, files: number, quarantined: number, errors: ErrorRecord[], notes: string[]): ResourceResult {
    const kept = errors.slice(0, MAX_ERRORS_PER_RESOURCE);
    if (errors.length > kept.length) notes.push(`${errors.length - kept.length} more windows failed`);
    const outcome = { source: run.connection.source, resource: spec.name, status, rows, files, quarantined, requests, retries: run.progress.retriesOf(key), seconds: (performance.now() - started) / 1000, errors: kept, notes };
    run.progress.finished(key, outcome);
    return outcome;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
