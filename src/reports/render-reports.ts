import type { DuckDBConnection, DuckDBInstance, DuckDBValue } from '@duckdb/node-api';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_REPORT_LOCALE, DEFAULT_REPORT_TIME_ZONE } from '../config/settings.js';
import { type DuckDBBudget, openDatabase, queryRows, withConnection } from '../core/duckdb.js';
import { withLanes } from '../core/lanes.js';
import { errorMessage, FanlakeError, UsageError } from '../core/errors.js';
import { META_SCHEMA } from '../warehouse/meta-schema.js';
import { warehousePath } from '../raw-contract/index.js';
import { existingRelations } from '../warehouse/warehouse.js';
import { renderDigest } from './digest.js';
import { ValueFormatter } from './format-values.js';
import { CATALOG_CACHE_FILE, loadReportCatalogCached } from './catalog-cache.js';
import type { CheckedReport, ReportCatalog } from './report-catalog.js';
import { bindParam, checkParamNames } from './report-params.js';
import type { BoundParam } from './report-params.js';
import { writeIndex } from './render-index.js';
import { loadChartEngines } from './render-chart.js';
import { renderPage } from './render-page.js';
import type { Figure, QueryOutcome, SourceFreshness } from './render-page.js';
import { listRenderings, publishRendering, readRenderingRecord, renderingFolderName, writeRenderingRecord } from './renderings.js';
import type { RenderingRecord } from './renderings.js';
import { queryScalar, queryToParquet, readDataset } from './run-query.js';
import { ChartFolder, chartFolderOf } from './drawn-charts.js';
import { CODE } from '../core/error-codes.js';

/** Options of {@link renderReports}; the CLI fills them from settings and flags. */
export interface RenderOptions {
  dataDir: string;
  /** Reports to render by name; all when absent or empty. */
  names?: string[];
  /** `--param` values; each report receives the ones it declares. */
  params?: Record<string, string>;
  /** Where renderings go; default `<dataDir>/reports`. */
  outDir?: string;
  /** Report definitions; default `<repo>/reports`. */
  reportsDir?: string;
  /** Models the queries may read; default `<repo>/sql`. */
  modelsDir?: string;
  locale?: string;
  currency?: string;
  timeZone?: string;
  /** Renderings kept per report; default 30. */
  keep?: number;
  /** The render time; default now. */
  now?: Date;
  /** Rows shown per table on the page (the data files hold all); default 500. */
  maxRows?: number;
  /** What DuckDB may use for the report queries (config/duckdb-budget.ts); DuckDB's defaults when absent. */
  budget?: DuckDBBudget;
  /**
   * The definitions as the caller already loaded them from `reportsDir` and `modelsDir`
   * (`fanlake run` checks them before its extract); loaded here when absent, from the catalog
   * kept in `<out>/.catalog.json` while the definitions and models are as when it was checked.
   */
  catalog?: ReportCatalog;
  /** The warehouse, already open (`run` shares the one its build and check used); left open. Absent: opened read-only and closed. */
  instance?: DuckDBInstance;
}

/** What became of one report. `failed` is an engine error confined to that report (exit 1). */
export interface ReportResult {
  name: string;
  status: 'ok' | 'failed';
  /** The rendering's folder. */
  dir?: string;
  /** The `summary.md` text. */
  digest?: string;
  personalData: boolean;
  error?: FanlakeError;
}

export const DEFAULT_KEEP = 30;
const STAGING_PREFIX = '.rendering-';
const DEFAULT_MAX_ROWS = 500;
/** Rows read back for charts: more points than this do not make a readable chart anyway. */
const CHART_MAX_POINTS = 5000;
const NO_WAREHOUSE = 'no warehouse yet (run fanlake extract, load and build)';

/** A report whose queries have run into its staging folder, ready to be rendered. */
interface Executed {
  report: CheckedReport;
  staging: string;
  params: BoundParam[];
  outcomes: Map<string, QueryOutcome>;
  sources: SourceFreshness[];
  /** The charts the report's last rendering drew, kept for the charts drawn the same again. */
  charts: ChartFolder;
}

/** An executed report and its page, drawn while the next report's queries run (see {@link startPage}). */
interface Drawn extends Executed {
  page: Promise<{ html: string; figures: Figure[] }>;
}

/**
 * `fanlake report`: renders each selected report into `<out>/<name>/<UTC timestamp>/`
 * (`index.html`, one CSV and Parquet file per query shown, `summary.md`), points `latest`
 * at it, keeps the newest `keep` renderings and rewrites `<out>/index.html`.
 *
 * Every query runs first, into the report's staging folder: a definition problem (bad file,
 * unknown relation or parameter, or a field missing from its query's columns) throws
 * UsageError before any rendering is published. An engine error fails that report only.
 * The queries of all the reports share one read-only open of the warehouse (`run`'s own open,
 * under its writer lock), so every page of a rendering reads the same state of it; the caller holds the writer lock, which keeps
 * fanlake's writers out meanwhile anyway. Two reports run at once (core/lanes.ts), each page drawn
 * while the next report's queries run; the results keep the reports' order.
 */
export async function renderReports(options: RenderOptions): Promise<ReportResult[]> {
  const now = options.now ?? new Date();
  const outDir = options.outDir ?? join(options.dataDir, 'reports');
  const formatter = new ValueFormatter({ locale: options.locale ?? DEFAULT_REPORT_LOCALE, currency: options.currency ?? 'NOK', timeZone: options.timeZone ?? DEFAULT_REPORT_TIME_ZONE });
  const { catalog, keep: keepCatalog } = options.catalog ? { catalog: options.catalog, keep: async () => undefined } : await loadReportCatalogCached(join(outDir, CATALOG_CACHE_FILE), options.reportsDir, options.modelsDir);
  const selected = selectReports(catalog, options.names);
  const given = options.params ?? {};
  checkParamNames(given, selected.map((report) => report.meta.params), selected.map((report) => report.name));

  const results = new Map<string, ReportResult>();
  const executed = new Map<string, Drawn>();
  // per report, so the message lists them in the reports' order whichever lane ran them
  const problems = new Map(selected.map((report) => [report.name, [] as string[]]));
  const folder = renderingFolderName(now);
  // a failed load fails the first chart, as it would without this
  if (selected.some((report) => report.parts.some((part) => part.kind === 'chart'))) loadChartEngines().catch(() => undefined);
  try {
    await withWarehouseInventory(options, async (lanes) => {
      const waiting = [...selected];
      let usageError: UsageError | undefined;
      // settled, not raced: a lane that fails leaves the other to finish its query before the
      // connections close
      const settled = await Promise.allSettled(
        lanes.map(async (inventory) => {
          for (let report = waiting.shift(); report && !usageError; report = waiting.shift()) {
            const staging = join(outDir, report.name, `${STAGING_PREFIX}${folder}`);
            try {
              const run = await execute(report, catalog, inventory, given, staging, options, problems.get(report.name)!);
              executed.set(report.name, { ...run, page: startPage(run, now, formatter, options) });
            } catch (error) {
              await rm(staging, { recursive: true, force: true });
              if (error instanceof UsageError) usageError ??= error;
              else results.set(report.name, failed(report, error));
            }
          }
        }),
      );
      for (const lane of settled) if (lane.status === 'rejected') throw lane.reason;
      if (usageError) throw usageError;
    });
    const found = [...problems.values()].flat();
    if (found.length > 0) throw new UsageError(`report definitions have problems:\n  ${found.join('\n  ')}`);
  } catch (error) {
    for (const run of executed.values()) await rm(run.staging, { recursive: true, force: true });
    throw error;
  }

  for (const report of selected) {
    const run = executed.get(report.name);
    if (!run) continue;
    try {
      results.set(report.name, await publish(run, outDir, folder, now, formatter, options));
    } catch (error) {
      await rm(run.staging, { recursive: true, force: true });
      results.set(report.name, failed(report, error));
    }
  }
  await writeIndex(outDir, formatter, now);
  await keepCatalog();
  return selected.map((report) => results.get(report.name)!);
}

function selectReports(catalog: ReportCatalog, names: readonly string[] | undefined): CheckedReport[] {
  if (!names || names.length === 0) return catalog.reports;
  const known = catalog.reports.map((report) => report.name);
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new UsageError(`unknown report ${unknown.join(', ')}; known: ${known.join(', ') || 'none'}`);
  return catalog.reports.filter((report) => names.includes(report.name));
}

/** What the warehouse holds (its catalog, no data), the newest load per source, and the connection the queries run on. */
interface Inventory {
  /** Read-only; absent when there is no warehouse yet. */
  reader?: DuckDBConnection;
  relations: Set<string>;
  freshness: SourceFreshness[];
}

/**
 * Runs `fn` with the warehouse opened read-only (or as the caller opened it) and inventoried, one inventory per lane (each
 * with a connection of its own: reports whose queries run at once, the page of one drawn
 * meanwhile too; core/lanes.ts), or with one empty inventory when there is no warehouse yet.
 */
async function withWarehouseInventory(options: RenderOptions, fn: (lanes: Inventory[]) => Promise<void>): Promise<void> {
  const path = warehousePath(options.dataDir);
  if (options.instance === undefined && !existsSync(path)) return fn([{ relations: new Set(), freshness: [] }]);
  const instance = options.instance ?? (await openDatabase(path, { ...options.budget, accessMode: 'READ_ONLY' }));
  try {
    await withConnection(instance, async (reader) => {
      const relations = await existingRelations(reader);
      const rows = relations.has(`${META_SCHEMA}.raw_tables`)
        ? await queryRows(reader, `select source, strftime(max(newest_extracted_at) at time zone 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ') as newest, arg_max(newest_run_id, newest_extracted_at) as run_id from ${META_SCHEMA}.raw_tables group by source order by source`)
        : [];
      const freshness = rows.map((row) => ({ source: String(row.source), newestExtractedAt: row.newest === null ? null : String(row.newest), runId: row.run_id === null ? null : String(row.run_id) }));
      await withLanes(instance, reader, options.budget, (lanes) => fn(lanes.map((connection) => ({ reader: connection, relations, freshness }))));
    });
  } finally {
    if (options.instance === undefined) instance.closeSync();
  }
}

async function execute(
  report: CheckedReport,
  catalog: ReportCatalog,
  inventory: Inventory,
  given: Record<string, string>,
  staging: string,
  options: RenderOptions,
  problems: string[],
): Promise<Executed> {
  await removeStaleStaging(join(staging, '..'));
  await mkdir(staging, { recursive: true });
  const unavailable = (query: string) => missingReason(report.shapes.get(query)!.relations, inventory, catalog);
  const { reader } = inventory;

  const params: BoundParam[] = [];
  for (const param of report.meta.params) {
    let text: string | null = given[param.name] ?? (param.default === undefined ? null : String(param.default));
    if (given[param.name] === undefined && param.defaultQuery !== undefined && reader && unavailable(param.defaultQuery) === undefined) {
      const value = await queryScalar(reader, report.queries.get(param.defaultQuery)!.sql, bindings(report, param.defaultQuery, params));
      text = value === null ? null : String(value);
    }
    params.push(bindParam(param, text, report.file));
  }

  const shown = new Set(report.parts.flatMap((part) => (part.kind === 'prose' ? [] : [part.spec.query])));
  const outcomes = new Map<string, QueryOutcome>();
  for (const query of shown) {
    const reason = unavailable(query);
    if (reason !== undefined || !reader) {
      outcomes.set(query, { status: 'unavailable', reason: reason ?? NO_WAREHOUSE });
      continue;
    }
    const parquet = join(staging, `${query}.parquet`);
    try {
      await queryToParquet(reader, report.queries.get(query)!.sql, bindings(report, query, params), parquet);
    } catch (error) {
      throw new FanlakeError(CODE.E_REPORT_QUERY, `${report.file}: query ${query} failed: ${errorMessage(error)}`, { context: { report: report.name, query }, cause: error });
    }
    const dataset = await readDataset(reader, parquet, join(staging, `${query}.csv`), Math.max(options.maxRows ?? DEFAULT_MAX_ROWS, CHART_MAX_POINTS));
    problems.push(...missingFields(report, query, new Set(dataset.columns.map((column) => column.name))));
    outcomes.set(query, { status: 'ok', dataset });
  }

  const read = new Set([...report.shapes.values()].flatMap((shape) => shape.relations).flatMap((relation) => catalog.sourcesOf.get(relation) ?? []).map((raw) => raw.replace(/^raw\./, '').split('_')[0]!));
  const sources = read.size === 0 ? inventory.freshness : inventory.freshness.filter((source) => read.has(source.source));
  return { report, staging, params, outcomes, sources, charts: new ChartFolder(chartFolderOf(join(staging, '..'))) };
}

/**
 * A rendering killed halfway leaves its `.rendering-*` folder behind; the writer lock makes
 * this run the only one rendering, so any such folder is abandoned.
 */
async function removeStaleStaging(reportDir: string): Promise<void> {
  const entries = await readdir(reportDir).catch(() => [] as string[]);
  for (const entry of entries.filter((name) => name.startsWith(STAGING_PREFIX))) await rm(join(reportDir, entry), { recursive: true, force: true });
}

/** Only the parameters a query uses: DuckDB refuses values for parameters a statement lacks. */
function bindings(report: CheckedReport, query: string, params: readonly BoundParam[]): Record<string, DuckDBValue> {
  const used = report.shapes.get(query)!.params;
  return Object.fromEntries(params.filter((param) => used.includes(param.name)).map((param) => [param.name, param.value]));
}

/** Why a query cannot run: the first relation it reads that the warehouse lacks, and why that is. */
function missingReason(relations: readonly string[], inventory: Inventory, catalog: ReportCatalog): string | undefined {
  if (!inventory.reader) return NO_WAREHOUSE;
  const missing = relations.find((relation) => !inventory.relations.has(relation));
  if (missing === undefined) return undefined;
  if (missing.startsWith(`${META_SCHEMA}.`)) {
    return `${missing} is not written yet (${missing === `${META_SCHEMA}.check_results` ? 'run fanlake check' : 'run fanlake load'})`;
  }
  const sources = catalog.sourcesOf.get(missing) ?? [];
  const optional = sources.find((source) => catalog.optionalSources.has(source) && !inventory.relations.has(source));
  if (optional) return `${missing} is not built (it rests on the optional source ${optional}, which is not loaded)`;
  const absent = sources.find((source) => !inventory.relations.has(source));
  if (absent) return `${missing} is not built (its source ${absent} is not loaded yet)`;
  return `${missing} is not built (run fanlake build)`;
}

function missingFields(report: CheckedReport, query: string, columns: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  for (const part of report.parts) {
    if (part.kind === 'prose' || part.spec.query !== query) continue;
    const fields =
      part.kind === 'chart'
        ? [part.spec.x.field, part.spec.y.field, ...(part.spec.color ? [part.spec.color.field] : [])]
        : part.kind === 'figures'
          ? part.spec.items.flatMap((item) => [item.field, ...(item.labelField === undefined ? [] : [item.labelField])])
          : (part.spec.columns ?? []).map((column) => (typeof column === 'string' ? column : column.field));
    for (const field of fields.filter((f) => !columns.has(f))) {
      problems.push(`${report.file}: ${part.kind} block at line ${part.line}: field ${field} is not a column of query ${query} (columns: ${[...columns].join(', ')})`);
    }
  }
  return problems;
}

/**
 * Starts drawing a report's page and leaves it running: its charts are the engine's own CPU
 * work, and they take turns with DuckDB's running of the next report's queries instead of
 * waiting for all of them. A page that fails does so where it is published; until then its
 * promise is marked handled, as a definition problem may end the rendering before that.
 */
function startPage(run: Executed, now: Date, formatter: ValueFormatter, options: RenderOptions): Drawn['page'] {
  const page = renderPage({
    report: run.report,
    params: run.params.map((param) => ({ name: param.name, value: param.text })),
    outcomes: run.outcomes,
    formatter,
    renderedAt: now,
    sources: run.sources,
    maxRows: options.maxRows ?? DEFAULT_MAX_ROWS,
    drawnCharts: run.charts,
  });
  page.catch(() => undefined);
  return page;
}

async function publish(run: Drawn, outDir: string, folder: string, now: Date, formatter: ValueFormatter, options: RenderOptions): Promise<ReportResult> {
  const { report } = run;
  const { html, figures } = await run.page;
  const record: RenderingRecord = {
    version: 1,
    name: report.name,
    title: report.meta.title,
    renderedAt: now.toISOString(),
    params: Object.fromEntries(run.params.map((param) => [param.name, param.text])),
    personalData: report.meta.personalData,
    figures,
    sources: run.sources.map((source) => ({ ...source })),
  };
  const reportDir = join(outDir, report.name);
  const previous = await previousRendering(reportDir, record.params);
  const digest = renderDigest(record, previous, formatter);
  await writeFile(join(run.staging, 'index.html'), html);
  await writeFile(join(run.staging, 'summary.md'), digest);
  await writeRenderingRecord(run.staging, record);
  const dir = await publishRendering(reportDir, run.staging, folder, options.keep ?? DEFAULT_KEEP);
  // what the next rendering may take: this one's charts (the rendering is published whatever
  // becomes of them: a chart not kept is drawn again)
  await run.charts.save().catch(() => undefined);
  return { name: report.name, status: 'ok', dir, digest, personalData: report.meta.personalData };
}

/** The newest earlier rendering with the same parameters: what the digest compares with. */
async function previousRendering(reportDir: string, params: Record<string, string | null>): Promise<RenderingRecord | undefined> {
  const same = JSON.stringify(params);
  for (const folder of (await listRenderings(reportDir)).reverse()) {
    const record = await readRenderingRecord(join(reportDir, folder));
    if (record && JSON.stringify(record.params) === same) return record;
  }
  return undefined;
}

function failed(report: CheckedReport, error: unknown): ReportResult {
  const wrapped = error instanceof FanlakeError ? error : new FanlakeError(CODE.E_REPORT_RENDER, `${report.file}: ${errorMessage(error)}`, { context: { report: report.name }, cause: error });
  return { name: report.name, status: 'failed', personalData: report.meta.personalData, error: wrapped };
}
