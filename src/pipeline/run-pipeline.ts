import type { SourceName } from '../extract/run-extraction.js';
import { type RunSummary, runFailed, type StepName, type StepSummary } from './run-summary.js';
import type { DuckDBInstance } from '@duckdb/node-api';
import { mkdir } from 'node:fs/promises';
import { openDatabase } from '../core/duckdb.js';
import { buildDatabaseOptions } from '../models/build-models.js';
import { newRunId, warehousePath } from '../raw-contract/index.js';
import { buildSettingsFrom, buildStep } from './steps/build.js';
import { checkStep } from './steps/check.js';
import { extractStep } from './steps/extract.js';
import { loadStep } from './steps/load.js';
import type { ReportResult } from '../reports/index.js';
import { checkReportDefinitions, reportStep } from './steps/report.js';
import { type StepContext, timedStep } from './steps/step.js';

export interface PipelineOptions extends StepContext {
  /** Steps to run, in their fixed order; all when absent (a report-only job names `report`). */
  steps?: readonly StepName[];
  sources?: readonly SourceName[];
  resources?: readonly string[];
  fullRefresh?: boolean;
  reports?: string[];
  params?: Record<string, string>;
  /** Failed error-level checks stop the reports too (by default the reports still render and show them). */
  strict?: boolean;
  /** Once aborted, the running step finishes and the remaining ones are skipped (`stopped`). */
  stop?: AbortSignal;
  /** Told as each step ends, for progress lines. */
  onStep?: (step: StepSummary) => void;
  /** Remove raw runs past `raw.retentionDays` after the load (`fanlake run`; a scheduled job prunes after its job). */
  pruneRaw?: boolean;
}

export interface PipelineResult {
  summary: RunSummary;
  /** The report engine's results, digests included, for delivery. */
  reports: ReportResult[];
}

/**
 * Which earlier steps a step needs. A failed step skips those that need it; a partial one does
 * not (its usable part goes on). Checks gate the reports only in strict mode.
 */
function needs(step: StepName, strict: boolean): StepName[] {
  switch (step) {
    case 'extract':
      return [];
    case 'load':
      return ['extract'];
    case 'build':
      return ['load'];
    case 'check':
      return ['build'];
    case 'report':
      return strict ? ['build', 'check'] : ['build'];
  }
}

/** `fanlake run`: extract, load, build, check and report, one after the other; returns one summary. */
export async function runPipeline(options: PipelineOptions): Promise<PipelineResult> {
  const startedAt = new Date();
  const wanted = new Set<StepName>(options.steps ?? ['extract', 'load', 'build', 'check', 'report']);
  // The failed step behind each step that did not run well, so a skip names the real cause.
  const failedAt = new Map<StepName, StepName>();
  const steps: StepSummary[] = [];
  let runId = newRunId(startedAt);
  let reports: ReportResult[] = [];
  const catalog = wanted.has('report') ? await checkReportDefinitions(options, options.reports) : undefined;

  const run = async (name: StepName, fn: () => Promise<Omit<StepSummary, 'step' | 'seconds'>>) => {
    if (!wanted.has(name)) return;
    const blocker = needs(name, options.strict ?? false).map((need) => failedAt.get(need)).find((cause) => cause !== undefined);
    let summary: StepSummary;
    if (blocker) summary = skipped(name, `${blocker} failed`);
    else if (options.stop?.aborted) summary = skipped(name, 'stopped');
    else summary = await timedStep(name, fn);
    if (blocker) failedAt.set(name, blocker);
    else if (summary.status === 'failed') failedAt.set(name, name);
    steps.push(summary);
    options.onStep?.(summary);
  };

  await run('extract', async () => {
    const result = await extractStep(options, { sources: options.sources, resources: options.resources, fullRefresh: options.fullRefresh });
    runId = result.runId;
    return result.summary;
  });
  // The load, the build, the check and the reports share one open warehouse: every open reads
  // the catalog again and every close checkpoints (0.05-0.3 s apiece in a quiet run, the load's
  // three opens among them); opened by the first of them, closed after the reports.
  let warehouse: DuckDBInstance | undefined;
  const sharing = async (): Promise<StepContext> => {
    if ((['load', 'build', 'check'] as const).filter((step) => wanted.has(step)).length < 2) return options;
    if (warehouse === undefined) {
      await mkdir(options.config.dataDir, { recursive: true });
      warehouse = await openDatabase(warehousePath(options.config.dataDir), buildDatabaseOptions(buildSettingsFrom(options.config)));
    }
    return { ...options, warehouse };
  };
  try {
    await run('load', async () => loadStep(await sharing(), { pruneRaw: options.pruneRaw }));
    await run('build', async () => buildStep(await sharing(), { runId, fullRefresh: options.fullRefresh }));
    await run('check', async () => checkStep(await sharing()));
    await run('report', async () => {
      // the reports read what the build and the check left, on the warehouse they opened (when they did)
      const result = await reportStep(warehouse === undefined ? options : { ...options, warehouse }, { names: options.reports, params: options.params, catalog });
      reports = result.reports;
      return result.summary;
    });
  } finally {
    warehouse?.closeSync();
  }

  const summary: RunSummary = {
    runId,
    status: runFailed(steps) ? 'failed' : 'ok',
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    steps,
    reports: reports.map((r) => ({ name: r.name, status: r.status, dir: r.dir, personalData: r.personalData, ...(r.error ? { error: r.error.message } : {}) })),
  };
  return { summary, reports };
}

function skipped(step: StepName, reason: string): StepSummary {
  return { step, status: 'skipped', counts: {}, seconds: 0, reason, errors: [], notes: [], results: [] };
}
