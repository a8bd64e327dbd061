import pLimit from 'p-limit';
import type { Config } from '../config/load-config.js';
import { registerSecret } from '../core/secrets.js';
import { UsageError } from '../core/errors.js';
import { TICKETING_RESOURCES, ticketingConnection } from '../sources/ticketing/index.js';
import { ENGAGEMENT_ENDPOINTS, ENGAGEMENT_TABLES, type EngagementSettings, USER_SCOPED, engagementConnection } from '../sources/engagement/index.js';
import { type SnapshotOptions, type WindowOptions, extractDeclarations } from './engine/extract-declarations.js';
import { createHttpClient } from './http/index.js';
import { ExtractProgress } from './progress.js';
import { type ResourceResult, skippedResult } from './resource-result.js';
import { newRunId, writeExtractionSummary } from '../raw-contract/index.js';
import { SourceState } from './state.js';
import { KeptConversionDatabase } from './spool/index.js';
import { readReceiverState } from '../listen/receiver-state.js';
import { SubscriptionApi } from '../listen/subscription-api.js';
import type { SourceConnection } from '../sources/connection.js';
import type { ExtractionSummary } from '../raw-contract/index.js';
import { familyTables, planRefresh, type RefreshPlan } from './refresh-plan.js';
import { SnapshotState } from './snapshot-state.js';

export const SOURCES = ['ticketing', 'engagement'] as const;
export type SourceName = (typeof SOURCES)[number];

export interface ExtractRequest {
  readonly config: Config;
  /** Sources to extract; all configured ones when absent. */
  readonly sources?: readonly SourceName[];
  /** Resource names without the source prefix; all when absent. */
  readonly resources?: readonly string[];
  readonly fullRefresh?: boolean;
  readonly progress?: ExtractProgress;
}

export interface ExtractRunResult {
  readonly runId: string;
  readonly results: ResourceResult[];
  /** Sources left out, with why (not configured): not a failure. */
  readonly skippedSources: { source: SourceName; reason: string }[];
  /** With a push subscription: how far into the change journal the run reaches (see ExtractionSummary). */
  readonly changes?: ExtractionSummary['changes'];
}

/** Resource names per source, for `--resource` and the results. */
const RESOURCE_NAMES: Record<SourceName, readonly string[]> = {
  ticketing: TICKETING_RESOURCES.map((spec) => spec.name),
  engagement: ENGAGEMENT_TABLES.map((table) => table.name),
};

/** Runs one extraction: every selected resource of every configured source, concurrently. */
export async function runExtraction(request: ExtractRequest): Promise<ExtractRunResult> {
  const { config } = request;
  const selected = request.sources ?? SOURCES;
  checkResourceNames(selected, request.resources);
  const runStartedAt = new Date();
  const runId = newRunId(runStartedAt);
  const progress = request.progress ?? new ExtractProgress();
  const skippedSources: ExtractRunResult['skippedSources'] = [];
  const results: ResourceResult[] = [];
  let changes: ExtractRunResult['changes'];
  // Parquet parts are written one at a time, by one DuckDB kept for the run or, with
  // extract.conversionMemory = release, by a DuckDB opened per part (see ParquetSpool).
  const duckdb = config['extract.conversionMemory'] === 'keep' ? new KeptConversionDatabase() : undefined;
  try {
    for (const source of selected) {
      const outcome = source === 'ticketing' ? ticketingConnection(config) : engagementConnection(config);
      if ('skipped' in outcome) {
        skippedSources.push({ source, reason: outcome.skipped });
        continue;
      }
      const { connection } = outcome;
      const only = request.resources?.filter((name) => RESOURCE_NAMES[source].includes(name));
      if (request.resources && only!.length === 0) continue;
      registerSecret(connection.authorization.replace(/^Basic /, ''));
      const client = createHttpClient({
        concurrency: config.concurrency,
        timeoutMs: config['http.timeoutMs'],
        maxAttempts: config['http.maxAttempts'],
        userAgent: 'fanlake/0.1',
        onRetry: (event) => progress.retried(`${event.context.source}.${event.context.resource}`),
      });
      const context = { dataDir: config.dataDir, runId, runStartedAt, connection, client, progress, duckdb };
      try {
        const run = { ...context, concurrency: config.concurrency, only };
        if (source === 'ticketing') {
          results.push(...(await extractDeclarations({ ...run, windows: await windowOptions(config, request.fullRefresh ?? false) }, TICKETING_RESOURCES)));
        } else {
          const snapshots = await SnapshotState.open(config.dataDir, 'engagement');
          const plan = await engagementPlan(config, connection, snapshots, runStartedAt, request.fullRefresh ?? false, only);
          const read = await extractDeclarations({ ...run, differences: true, whole: snapshots.wholeTables(), snapshot: engagementOptions(config) }, plan.endpoints);
          const engagement = [...withPlanNotes(read, plan), ...[...plan.skipped].filter(([name]) => !only || only.includes(name)).map(([name, why]) => skippedResult(source, name, why))];
          results.push(...engagement);
          if (!only) for (const [name, why] of Object.entries(USER_SCOPED)) results.push(skippedResult('engagement', name, why));
          changes = await recordSnapshots(snapshots, plan, engagement, runId, runStartedAt);
        }
      } finally {
        await client.close();
      }
    }
  } finally {
    progress.close();
    await duckdb?.close();
  }
  // What `status` reports about past runs, and what load records in meta.extraction_runs.
  const summary = { runId, startedAt: runStartedAt.toISOString(), finishedAt: new Date().toISOString(), results, skippedSources, ...(changes ? { changes } : {}) };
  await writeExtractionSummary(config.dataDir, summary);
  return { runId, results, skippedSources, changes };
}

/** How this run reads the engagement API: in full, by changed key, or left for the snapshot schedule (see planRefresh). */
async function engagementPlan(config: Config, connection: SourceConnection, snapshots: SnapshotState, now: Date, fullRefresh: boolean, only: readonly string[] | undefined) {
  const api = new SubscriptionApi({ connection, timeoutMs: config['http.timeoutMs'], maxAttempts: config['http.maxAttempts'] });
  return planRefresh({
    endpoints: ENGAGEMENT_ENDPOINTS,
    dataDir: config.dataDir,
    now,
    fullRefresh,
    only,
    snapshotCron: config['engagement.snapshotCron'],
    settleSeconds: config['listen.settleSeconds'],
    readEveryRun: config['engagement.readEveryRun'],
    snapshots,
    receiver: await readReceiverState(config.dataDir),
    subscription: (id) => api.get(id),
  });
}

/** The plan's note (why in full, what was re-read) first among each result's notes. */
function withPlanNotes(results: readonly ResourceResult[], plan: RefreshPlan<EngagementSettings>): ResourceResult[] {
  return results.map((result) => {
    const note = plan.notes.get(result.resource);
    return note && result.status !== 'skipped' ? { ...result, notes: [note, ...result.notes] } : result;
  });
}

/**
 * Records the families read in full whose every table completed as the source's latest
 * snapshots, forgets the marks of the tables read in full that completed (a load asked for
 * them whole, and they were written whole), and returns how far into the change journal the
 * run reaches, when the family the changes concern completed (read in full, re-read by key,
 * or nothing to re-read).
 */
async function recordSnapshots(state: SnapshotState, plan: RefreshPlan<EngagementSettings>, results: readonly ResourceResult[], runId: string, startedAt: Date): Promise<ExtractRunResult['changes']> {
  const status = new Map(results.map((result) => [result.resource, result.status]));
  // Skipped is not failed: an opt-in left off, a module the organization lacks, or nothing to re-read.
  const completed = (root: string) => familyTables(ENGAGEMENT_ENDPOINTS, plan.families, root).every((table) => status.get(table) === 'ok' || status.get(table) === 'skipped');
  const complete = [...plan.fullRoots].filter((root) => status.get(root) === 'ok' && completed(root));
  // A table read in full that completed was written whole whatever its family did (a mark is per table).
  const written = [...plan.fullRoots].flatMap((root) => familyTables(ENGAGEMENT_ENDPOINTS, plan.families, root)).filter((table) => status.get(table) === 'ok');
  await state.record(complete, runId, startedAt, written);
  const signalled = ENGAGEMENT_ENDPOINTS.find((endpoint) => endpoint.byKey)?.name;
  return plan.changes && signalled && completed(signalled) ? plan.changes : undefined;
}


/** The ticketing API's window rules and stored positions. */
async function windowOptions(config: Config, fullRefresh: boolean): Promise<WindowOptions> {
  const membersBase = config['ticketing.membersPageBase'];
  return {
    state: await SourceState.open(config.dataDir, 'ticketing'),
    pageSlots: pLimit(config.concurrency * 2),
    fullRefresh,
    startDate: new Date(config['ticketing.startDate']),
    lookbackMinutes: config['ticketing.lookbackMinutes'],
    maxWindowDays: config['ticketing.maxWindowDays'],
    pageBases: membersBase === 'auto' ? {} : { members: Number(membersBase) as 0 | 1 },
  };
}

/** What the engagement declarations read of the configuration. */
function engagementOptions(config: Config): SnapshotOptions<EngagementSettings> {
  return {
    accept: 'application/vnd.api+json, application/json',
    pageSize: config['engagement.pageSize'],
    settings: {
      contextRoots: config['engagement.contextRoots'],
      demographicValues: config['engagement.demographicValues'],
      loyalty: config['engagement.loyalty'],
      identities: config['engagement.identities'],
    },
  };
}

function checkResourceNames(sources: readonly SourceName[], resources?: readonly string[]): void {
  if (!resources) return;
  const known = sources.flatMap((source) => RESOURCE_NAMES[source]);
  const unknown = resources.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new UsageError(`unknown resource ${unknown.join(', ')}; known: ${known.join(', ')}`);
  }
}
