import { buildModels, type ModelResult } from '../../models/index.js';
import { ensureClubDir } from '../../models/club/club-files.js';
import { DEFAULT_IDENTITY_THRESHOLDS } from '../../models/identity-model/macros.js';
import type { StepSummary } from '../run-summary.js';
import type { Config } from '../../config/load-config.js';
import { toErrorRecord } from '../../core/error-record.js';
import { duckdbBudget } from '../../config/duckdb-budget.js';
import { type StepContext, statusOf, stepErrors } from './step.js';

export interface BuildStepOptions {
  select?: readonly string[];
  fullRefresh?: boolean;
}

/**
 * The build stage's results as a step. Models that failed keep their previous table and skip
 * their descendants, while independent branches build: partial unless nothing built.
 */
export function summarizeBuild(results: readonly ModelResult[]): Omit<StepSummary, 'step' | 'seconds'> {
  const count = (status: ModelResult['status']) => results.filter((r) => r.status === status).length;
  const failed = results.filter((r) => r.status === 'failed');
  return {
    status: statusOf(count('ok') + count('unchanged'), failed.length),
    counts: { built: count('ok'), unchanged: count('unchanged'), failed: failed.length, skipped: count('skipped'), ...(count('dropped') > 0 ? { dropped: count('dropped') } : {}) },
    ...stepErrors(failed.map((r) => toErrorRecord(r.error ?? 'failed', { model: `${r.schema}.${r.model}` }))),
    notes: results.flatMap((r) => ((r.status === 'skipped' || r.status === 'dropped') && r.reason ? [`${r.schema}.${r.model} ${r.status}: ${r.reason}`] : [])),
    results: results.map((r) => ({
      name: `${r.schema}.${r.model}`,
      status: r.status,
      counts: r.rows === undefined ? ({} as Record<string, number>) : { rows: r.rows },
      ...(r.reason ? { reason: r.reason } : {}),
    })),
  };
}

/** What the settings decide of a build, the same for `build` and `run`. */
export function buildSettingsFrom(config: Config) {
  return {
    ...duckdbBudget(config),
    macroSettings: { phoneDefaultCountryCode: config['models.phoneDefaultCountryCode'] },
    identityOverridesFile: config['models.identityOverrides'],
    clubDir: config['club.dir'],
    // a config made by hand (tests, older callers) may lack them: the model's defaults then
    identityThresholds: {
      link: config['models.identityLinkThreshold'] ?? DEFAULT_IDENTITY_THRESHOLDS.link,
      review: config['models.identityReviewThreshold'] ?? DEFAULT_IDENTITY_THRESHOLDS.review,
    },
  };
}

/** Runs the SQL models in dependency order. */
export async function buildStep(context: StepContext, options: BuildStepOptions = {}): Promise<Omit<StepSummary, 'step' | 'seconds'>> {
  const created = await ensureClubDir(context.config['club.dir']);
  const results = await buildModels({
    dataDir: context.config.dataDir,
    modelsDir: context.modelsDir,
    select: options.select,
    fullRefresh: options.fullRefresh,
    ...buildSettingsFrom(context.config),
  });
  const summary = summarizeBuild(results);
  return created ? { ...summary, notes: [created, ...summary.notes] } : summary;
}
