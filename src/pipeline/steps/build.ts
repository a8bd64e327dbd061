import { buildModels, DEFAULT_CHURN_WARN_SHARE, type BuildEvent, type ModelResult } from '../../models/index.js';
import { ensureClubDir } from '../../models/club/club-files.js';
import { DEFAULT_IDENTITY_THRESHOLDS } from '../../models/identity-model/macros.js';
import type { StepSummary } from '../run-summary.js';
import type { Config } from '../../config/load-config.js';
import { toErrorRecord } from '../../core/error-record.js';
import { duckdbBudget } from '../../config/duckdb-budget.js';
import { type StepContext, statusOf, stepErrors } from './step.js';
import { trainingGaps } from '../../models/identity-model/training-gaps.js';

export interface BuildStepOptions {
  select?: readonly string[];
  fullRefresh?: boolean;
  /** The run's id, which names the build in meta.identity_fan_churn. */
  runId?: string;
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
      ...(r.status === 'ok' ? { seconds: r.seconds } : {}),
    })),
  };
}

/** What the settings decide of a build, the same for `build` and `run`. */
export function buildSettingsFrom(config: Config) {
  return {
    ...duckdbBudget(config),
    concurrency: config['models.buildConcurrency'],
    macroSettings: { phoneDefaultCountryCode: config['models.phoneDefaultCountryCode'] },
    identityOverridesFile: config['models.identityOverrides'],
    clubDir: config['club.dir'],
    // a config made by hand (tests, older callers) may lack them: the model's defaults then
    identityThresholds: {
      link: config['models.identityLinkThreshold'] ?? DEFAULT_IDENTITY_THRESHOLDS.link,
      review: config['models.identityReviewThreshold'] ?? DEFAULT_IDENTITY_THRESHOLDS.review,
    },
    identityTraining: { mode: 'auto' as const, autoRetrain: config['models.identityAutoRetrain'] ?? false },
    identityChurnWarnShare: config['models.identityChurnWarnShare'] ?? DEFAULT_CHURN_WARN_SHARE,
  };
}

/** What a build did about the identity model and the fans, as notes and counts of its step (see identityNotes). */
export class IdentityReport {
  readonly notes: string[] = [];
  readonly counts: Record<string, number> = {};

  /** Takes the build's identity events; pass it as (part of) onEvent. */
  readonly onEvent = (event: BuildEvent): void => {
    if (event.type === 'identity-trained') {
      this.notes.push(`identity model version ${event.model.version} trained and put in force (${event.appliedBy}): ${event.reason}`);
      for (const gap of trainingGaps(event.model)) this.notes.push(`identity model version ${event.model.version}: not trained: ${gap}`);
    } else if (event.type === 'identity-retrain-due') {
      this.notes.push(`identity model: a retrain is due (${event.reason}); version ${event.version} stays in force: fanlake identity train shows what a new version would change, --apply puts it in force`);
    } else if (event.type === 'identity-churn') {
      const churn = event.churn;
      Object.assign(this.counts, { fans: churn.fansAfter, fan_ids_moved: churn.recordsMoved, fans_merged: churn.fansMerged, fans_split: churn.fansSplit });
      this.notes.push(
        `fans: ${churn.fansBefore} → ${churn.fansAfter} under identity model version ${churn.modelVersion}${churn.modelApplied ? ' (newly in force)' : ''}; ${churn.recordsMoved} of ${churn.recordsBefore} records' fan_id moved (${churn.fansMerged} fans merged, ${churn.fansSplit} split)`,
      );
    }
  };
}

/** Runs the SQL models in dependency order. */
export async function buildStep(context: StepContext, options: BuildStepOptions = {}): Promise<Omit<StepSummary, 'step' | 'seconds'>> {
  const created = await ensureClubDir(context.config['club.dir']);
  const identity = new IdentityReport();
  const results = await buildModels({
    dataDir: context.config.dataDir,
    modelsDir: context.modelsDir,
    select: options.select,
    fullRefresh: options.fullRefresh,
    ...buildSettingsFrom(context.config),
    ...(options.runId === undefined ? {} : { buildId: options.runId }),
    ...(context.warehouse === undefined ? {} : { instance: context.warehouse }),
    onEvent: identity.onEvent,
  });
  const summary = summarizeBuild(results);
  return { ...summary, counts: { ...summary.counts, ...identity.counts }, notes: [...(created ? [created] : []), ...identity.notes, ...summary.notes] };
}
