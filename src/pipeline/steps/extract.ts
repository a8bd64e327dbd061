import { type SourceName, runExtraction, type ExtractRunResult } from '../../extract/run-extraction.js';
import type { StepSummary } from '../run-summary.js';
import { type StepContext, statusOf } from './step.js';

export interface ExtractStepOptions {
  sources?: readonly SourceName[];
  resources?: readonly string[];
  fullRefresh?: boolean;
}

/** The extract stage's results as a step: partial when some resources failed and others did not. */
export function summarizeExtract(run: Pick<ExtractRunResult, 'results' | 'skippedSources'>): Omit<StepSummary, 'step' | 'seconds'> {
  const { results, skippedSources } = run;
  const bad = results.filter((r) => r.status === 'failed' || r.status === 'partial');
  const good = results.filter((r) => r.status === 'ok');
  const sum = (pick: (r: (typeof results)[number]) => number) => results.reduce((total, r) => total + pick(r), 0);
  const messages = [
    ...skippedSources.map(({ source, reason }) => `${source}: skipped (${reason})`),
    ...results.filter((r) => r.status !== 'ok').flatMap((r) => r.messages.map((m) => `${r.source}.${r.resource}: ${m}`)),
  ];
  const firstBad = bad[0];
  return {
    status: results.length === 0 ? 'skipped' : statusOf(good.length, bad.length),
    counts: { resources: good.length, failed: bad.length, rows: sum((r) => r.rows), files: sum((r) => r.files), quarantined: sum((r) => r.quarantined), requests: sum((r) => r.requests) },
    ...(results.length === 0 ? { reason: 'no source configured' } : {}),
    ...(firstBad ? { error: `${firstBad.source}.${firstBad.resource}: ${firstBad.messages[0] ?? firstBad.status}` } : {}),
    messages,
  };
}

/** Extracts every selected source; returns the step and the extraction's run id. */
export async function extractStep(context: StepContext, options: ExtractStepOptions): Promise<{ summary: Omit<StepSummary, 'step' | 'seconds'>; runId: string }> {
  const run = await runExtraction({ config: context.config, sources: options.sources, resources: options.resources, fullRefresh: options.fullRefresh });
  return { summary: summarizeExtract(run), runId: run.runId };
}
