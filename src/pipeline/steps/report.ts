import { redact } from '../../config/secrets.js';
import type { FanlakeError } from '../../core/errors.js';
import type { StepSummary } from '../run-summary.js';
import type { StepContext } from './step.js';

/**
 * The report engine's surface as agreed for `src/reports/index.ts` (issue 9). Declared here
 * only until that branch is merged; then these three types are imported from there.
 */
export interface RenderOptions { dataDir: string; names?: string[]; params?: Record<string, string>; outDir?: string; reportsDir?: string; locale?: string; currency?: string; timeZone?: string; keep?: number; now?: Date }
export interface ReportResult { name: string; status: 'ok' | 'failed'; dir?: string; digest?: string; personalData: boolean; error?: FanlakeError }
export type RenderReports = (options: RenderOptions) => Promise<ReportResult[]>;

export interface ReportStepOptions {
  /** Report names; every report when absent. */
  names?: string[];
  params?: Record<string, string>;
}

/** Rendered reports as a step: partial when some rendered and some failed. */
export function summarizeReports(results: readonly ReportResult[]): Omit<StepSummary, 'step' | 'seconds'> {
  const failed = results.filter((r) => r.status === 'failed');
  const rendered = results.length - failed.length;
  return {
    status: failed.length === 0 ? 'ok' : rendered === 0 ? 'failed' : 'partial',
    counts: { rendered, failed: failed.length },
    ...(failed[0] ? { error: `${failed[0].name}: ${redact(failed[0].error?.message ?? 'failed')}` } : {}),
    messages: failed.map((r) => `${r.name}: ${redact(r.error?.message ?? 'failed')}`),
  };
}

/** Renders the chosen reports with the engine; a definition error (UsageError) ends the run with exit 2. */
export async function reportStep(context: StepContext, render: RenderReports, options: ReportStepOptions): Promise<{ summary: Omit<StepSummary, 'step' | 'seconds'>; reports: ReportResult[] }> {
  const reports = await render({ dataDir: context.config.dataDir, names: options.names, params: options.params, now: context.now });
  return { summary: summarizeReports(reports), reports };
}
