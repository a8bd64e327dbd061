import { join, resolve } from 'node:path';
import type { Config } from '../../config/load-config.js';
import { toErrorRecord } from '../../core/error-record.js';
import { UsageError } from '../../core/errors.js';
import { CATALOG_CACHE_FILE, loadReportCatalogCached } from '../../reports/catalog-cache.js';
import { DEFAULT_REPORTS_DIR, type RenderOptions, type ReportCatalog, type ReportResult, renderReports } from '../../reports/index.js';
import type { StepSummary } from '../run-summary.js';
import { type StepContext, stepErrors } from './step.js';
import { duckdbBudget } from '../../config/duckdb-budget.js';

export interface ReportStepOptions {
  /** Report names; every report when absent. */
  names?: string[];
  params?: Record<string, string>;
  /** The definitions {@link checkReportDefinitions} loaded; loaded again when absent. */
  catalog?: ReportCatalog;
}

/** The report settings as the engine takes them. */
export function renderOptionsFrom(config: Config): Omit<RenderOptions, 'names' | 'params'> {
  return {
    dataDir: config.dataDir,
    reportsDir: config['report.definitions'] ? resolve(config['report.definitions']) : DEFAULT_REPORTS_DIR,
    locale: config['report.locale'],
    currency: config['report.currency'],
    timeZone: config['report.timeZone'],
    keep: config['report.keep'],
    budget: duckdbBudget(config),
  };
}

/**
 * Checks the report definitions and the names asked for before a run spends its time on the
 * extract: a bad definition or an unknown name is bad usage (exit 2) at once. Returns them for
 * the report step, which then renders the definitions the run checked without reading and
 * parsing them (and every model) a second time. The catalog is kept in `<data>/reports` and
 * taken from there while the definitions, the models and fanlake are as when it was checked.
 */
export async function checkReportDefinitions(context: StepContext, names: readonly string[] | undefined): Promise<ReportCatalog> {
  const { reportsDir } = renderOptionsFrom(context.config);
  const { catalog, keep } = await loadReportCatalogCached(join(context.config.dataDir, 'reports', CATALOG_CACHE_FILE), reportsDir, context.modelsDir);
  const known = catalog.reports.map((report) => report.name);
  const unknown = (names ?? []).filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new UsageError(`unknown report ${unknown.join(', ')}; known: ${known.join(', ') || '(none)'}`);
  await keep();
  return catalog;
}

/** Rendered reports as a step: partial when some rendered and some failed. */
export function summarizeReports(results: readonly ReportResult[]): Omit<StepSummary, 'step' | 'seconds'> {
  const failed = results.filter((r) => r.status === 'failed');
  const rendered = results.length - failed.length;
  return {
    status: failed.length === 0 ? 'ok' : rendered === 0 ? 'failed' : 'partial',
    counts: { rendered, failed: failed.length },
    ...stepErrors(failed.map((r) => toErrorRecord(r.error ?? 'failed', { report: r.name }))),
    notes: [],
    results: results.map((r) => ({ name: r.name, status: r.status, counts: {} })),
  };
}

/** Renders the chosen reports; a definition error (UsageError) ends the run with exit 2. */
export async function reportStep(context: StepContext, options: ReportStepOptions): Promise<{ summary: Omit<StepSummary, 'step' | 'seconds'>; reports: ReportResult[] }> {
  const reports = await renderReports({
    ...renderOptionsFrom(context.config),
    modelsDir: context.modelsDir,
    names: options.names,
    params: options.params,
    catalog: options.catalog,
    now: context.now,
    ...(context.warehouse === undefined ? {} : { instance: context.warehouse }),
  });
  return { summary: summarizeReports(reports), reports };
}
