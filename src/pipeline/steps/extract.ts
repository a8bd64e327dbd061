import { type SourceName, runExtraction, type ExtractRunResult } from '../../extract/run-extraction.js';
import type { StepSummary } from '../run-summary.js';
import { type StepContext, statusOf, stepErrors } from './step.js';
import type { Config } from '../../config/load-config.js';
import { duckdbBudget } from '../../config/duckdb-budget.js';
import { describeDropped, dropTombstoned, type TombstonedDrop } from '../../privacy/drop-tombstoned.js';

/**
 * An extraction, then the rows of people `forget` erased dropped from what it wrote (their
 * tombstones), so they do not wait on disk for the load; the extract and run commands and
 * scheduled jobs all extract through here.
 */
export async function extractWithTombstones(config: Config, options: ExtractStepOptions): Promise<ExtractRunResult & { dropped: TombstonedDrop }> {
  const run = await runExtraction({ config, sources: options.sources, resources: options.resources, fullRefresh: options.fullRefresh });
  return { ...run, dropped: await dropTombstoned(config.dataDir, duckdbBudget(config)) };
}

export interface ExtractStepOptions {
  sources?: readonly SourceName[];
  resources?: readonly string[];
  fullRefresh?: boolean;
}

/** The extract stage's results as a step: partial when some resources failed and others did not. */
export function summarizeExtract(run: Pick<ExtractRunResult, 'results' | 'skippedSources'> & { dropped?: TombstonedDrop }): Omit<StepSummary, 'step' | 'seconds'> {
  const { results, skippedSources } = run;
  const bad = results.filter((r) => r.status === 'failed' || r.status === 'partial');
  const good = results.filter((r) => r.status === 'ok');
  const sum = (pick: (r: (typeof results)[number]) => number) => results.reduce((total, r) => total + pick(r), 0);
  const notes = [
    ...skippedSources.map(({ source, reason }) => `${source}: skipped (${reason})`),
    ...results.flatMap((r) => r.notes.map((note) => `${r.source}.${r.resource}: ${note}`)),
    ...(run.dropped ? describeDropped(run.dropped) : []),
  ];
  const firstBad = bad[0];
  const errors = results.flatMap((r) => r.errors);
  return {
    status: results.length === 0 ? 'skipped' : statusOf(good.length, bad.length),
    counts: { resources: good.length, failed: bad.length, rows: sum((r) => r.rows), files: sum((r) => r.files), quarantined: sum((r) => r.quarantined), requests: sum((r) => r.requests), ...(run.dropped && run.dropped.rows > 0 ? { forgottenDropped: run.dropped.rows } : {}) },
    ...(results.length === 0 ? { reason: 'no source configured' } : {}),
    ...stepErrors(errors),
    ...(firstBad && errors.length === 0 ? { error: `${firstBad.source}.${firstBad.resource}: ${firstBad.status}` } : {}),
    notes,
    results: results.map((r) => ({
      name: `${r.source}.${r.resource}`,
      status: r.status,
      counts: { rows: r.rows, files: r.files, quarantined: r.quarantined, requests: r.requests, retries: r.retries },
      ...(r.status === 'skipped' && r.notes[0] ? { reason: r.notes[0] } : {}),
    })),
  };
}

/** Extracts every selected source; returns the step and the extraction's run id. */
export async function extractStep(context: StepContext, options: ExtractStepOptions): Promise<{ summary: Omit<StepSummary, 'step' | 'seconds'>; runId: string }> {
  const run = await extractWithTombstones(context.config, options);
  return { summary: summarizeExtract(run), runId: run.runId };
}
