import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { randomUUID } from 'node:crypto';
import { crashPoint } from '../core/crash-point.js';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { connect, IN_MEMORY, openDatabase, queryRows, quoteIdent } from '../core/duckdb.js';
import type { DatabaseOptions } from '../core/duckdb.js';
import { FanlakeError } from '../core/errors.js';
import { warehousePath } from '../raw-contract/index.js';
import { discoverProject, DEFAULT_MODELS_DIR, SOURCE_SCHEMA } from './discover-project.js';
import { collectLineage, writeLineage } from './lineage.js';
import { loadSeed, materializeModel } from './materialize.js';
import type { Materialization } from './model-header.js';
import { MODEL_ERROR_CODES, modelFailure } from './model-errors.js';
import { clubFileMacro, readClubFiles } from './club/club-files.js';
import { defaultOverridesFile, identityOverridesMacro, readIdentityOverrides } from './identity-overrides.js';
import { createMacro, createMacros, DEFAULT_MACRO_SETTINGS, parseMacros, settingMacros } from './macros.js';
import type { MacroSettings } from './macros.js';
import type { MacroDefinition } from './discover-project.js';
import { buildGraph, descendants } from './model-graph.js';
import { PARSE_CACHE_FILE, ParseCache } from './parse-cache.js';
import type { GraphNode, ModelGraph } from './model-graph.js';
import { runGraph } from './run-graph.js';
import { withConnections } from '../core/lanes.js';
import { selectModels } from './select-models.js';
import { BuildInputs, contentSignature, readBuildState, recordBuild } from './build-state.js';
import { type RelationKind, relationKinds } from '../warehouse/warehouse.js';
import { keysChangedSince, type ModelChanges, readModelChanges } from '../warehouse/changed-keys.js';
import { dropRemovedModels } from './drop-removed-models.js';
import { UsageError } from '../core/errors.js';
import { readIdentityModelConfig } from './identity-model/config.js';
import { DEFAULT_IDENTITY_THRESHOLDS, withDefinitionHash, type IdentityThresholds } from './identity-model/macros.js';
import { IdentityModelState, type IdentityModelOutcome, type IdentityTrainingOptions } from './identity-model/model-state.js';
import { compareFans, unchangedFans, recordChurn, type RecordedChurn } from './identity-model/fan-churn.js';
import { newRunId } from '../raw-contract/index.js';

export const BUILD_STATUSES = ['ok', 'unchanged', 'failed', 'skipped', 'dropped'] as const;
/**
 * `ok`: written; `unchanged`: its SQL and inputs are as at its last build, so it was left
 * as it is; `failed`: its SQL failed, the old object is kept (see `error`); `skipped`: a
 * parent did not build, or it reads an optional source that is not loaded (see `reason`);
 * `dropped`: an earlier build made it, and its model is no longer in the project.
 */
export type BuildStatus = (typeof BUILD_STATUSES)[number];

/** The outcome for one model or seed; the CLI prints these and picks the exit code. */
export interface ModelResult {
  /** Table name, e.g. `stg_ticketing__tickets`. */
  model: string;
  /** `staging`, `intermediate`, `marts` or `seeds`. */
  schema: string;
  materialized: Materialization | 'seed';
  status: BuildStatus;
  /** Rows written: the whole table, an incremental model's increment, a seed's rows; absent for views. */
  rows?: number;
  /** For an incremental model: whether any row was inserted, updated or deleted (always, when built in full). */
  changed?: boolean;
  seconds: number;
  error?: FanlakeError;
  /** Why it was skipped, naming the parent that failed. */
  reason?: string;
}

export type BuildEvent =
  | { type: 'build-started'; nodes: number }
  | { type: 'node-finished'; result: ModelResult }
  | IdentityModelOutcome
  | { type: 'identity-churn'; churn: RecordedChurn };

export interface BuildModelsOptions extends DatabaseOptions {
  dataDir: string;
  /** Defaults to `<dataDir>/warehouse.duckdb`. */
  warehousePath?: string;
  /** Defaults to the package's `sql/` folder. */
  modelsDir?: string;
  /** `--select` selectors (see selectModels); none builds everything. */
  select?: readonly string[];
  /** Rebuild every model, incremental ones from scratch, whether or not its inputs changed. */
  fullRefresh?: boolean;
  /** Values build writes into macros (the default phone country code); defaults: DEFAULT_MACRO_SETTINGS. */
  macroSettings?: MacroSettings;
  /**
   * The identity overrides file (see identity-overrides.ts); it must exist when given. Absent:
   * `identity_overrides.csv` in the club's folder (or, as the previous version kept it, in the
   * data directory), and no file is no decisions.
   */
  identityOverridesFile?: string;
  /** The club's folder (`club.dir`): its files replace the defaults of `defaults/club/` (club/club-files.ts). */
  clubDir?: string;
  /** The identity model's link and review thresholds (match probabilities); defaults: DEFAULT_IDENTITY_THRESHOLDS. */
  identityThresholds?: IdentityThresholds;
  /**
   * When the identity model is trained, just before the model that predicts with it builds (see
   * IdentityTrainingOptions); default `{ mode: 'auto' }`: only when none is in force.
   */
  identityTraining?: IdentityTrainingOptions;
  /** Share of records whose fan_id a build may move before the data test identity_fan_churn warns (setting identityChurnWarnShare); default DEFAULT_CHURN_WARN_SHARE. */
  identityChurnWarnShare?: number;
  /** Models built at once, each on a connection of its own (setting models.buildConcurrency); default DEFAULT_BUILD_CONCURRENCY; one with fullRefresh and in a first build. */
  concurrency?: number;
  /** Names this build in meta.identity_fan_churn: the run's id under `fanlake run`; a new one when absent. */
  buildId?: string;
  onEvent?: (event: BuildEvent) => void;
  /** The warehouse, already open (`run` shares it with the check); left open. Absent: the build opens and closes it. */
  instance?: DuckDBInstance;
}

/**
 * `fanlake build`: creates the macros of `sql/macros` (and those of settings) in schema
 * `macros`, loads every seed, then runs the selected models in dependency order and
 * writes `<dataDir>/lineage.json`. A failed model skips its descendants; independent
 * branches still build. Throws only before anything ran: a broken SQL project
 * (ModelProjectError), an unknown `--select` name (UsageError), or a warehouse that cannot
 * be opened; and after the run only if lineage.json cannot be written.
 */
export async function buildModels(options: BuildModelsOptions): Promise<ModelResult[]> {
  const project = await discoverProject(options.modelsDir ?? DEFAULT_MODELS_DIR);
  // What the club decided and the identity model's configuration are read and checked before
  // the warehouse is touched: a bad line exits 2.
  const clubFiles = await readClubFiles(options.clubDir);
  const overridesFile = options.identityOverridesFile ?? (await defaultOverridesFile(options.clubDir, options.dataDir));
  const overrides = await readIdentityOverrides(overridesFile, options.identityOverridesFile !== undefined);
  const filesConfig = await readIdentityModelConfig(options.modelsDir ?? DEFAULT_MODELS_DIR);
  const identityConfig = filesConfig && withDefinitionHash(filesConfig);
  const identityThresholds = checkedThresholds(options.identityThresholds ?? DEFAULT_IDENTITY_THRESHOLDS);
  await mkdir(options.dataDir, { recursive: true });
  // A build writes one large table after another (the identity pairs, records and clusters): the
  // memory one query used is kept for the next, up to what DuckDB may use anyway, instead of
  // being returned and faulted in again (a second of system time in a full identity build at
  // scale 10; docs/decisions.md "Memory a build keeps between models").
  const instance = options.instance ?? (await openDatabase(options.warehousePath ?? warehousePath(options.dataDir), buildDatabaseOptions(options)));
  const main = await connect(instance);
  try {
    const identityModel = await IdentityModelState.read(main, identityConfig, identityThresholds, options.identityTraining ?? { mode: 'auto' });
    const parses = await ParseCache.open(join(options.dataDir, PARSE_CACHE_FILE));
    // asked again after a training, whose macros the next build starts from
    const macroDefinitions = () => [
      ...settingMacros(options.macroSettings ?? DEFAULT_MACRO_SETTINGS),
      identityOverridesMacro(overrides, overridesFile),
      ...clubFiles.map(clubFileMacro),
      ...identityModel.macros(),
      ...project.macros,
    ];
    const graph = await buildGraph(project, main, macroDefinitions(), parses);
    await parses.save();
    const seeds = graph.order.filter((relation) => graph.nodes.get(relation)!.kind === 'seed');
    const chosen = new Set([...seeds, ...selectModels(graph, options.select)]);
    const order = graph.order.filter((relation) => chosen.has(relation));
    options.onEvent?.({ type: 'build-started', nodes: order.length });
    if (order.length === 0) return [];

    for (const schema of new Set(order.map((relation) => graph.nodes.get(relation)!.schema))) {
      await main.run(`create schema if not exists ${quoteIdent(schema)}`);
    }
    await createMacros(main, graph.macros).catch((cause: unknown) => {
      throw new FanlakeError(MODEL_ERROR_CODES.macroFailed, `creating the macros failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    });
    const lastBuilds = await readBuildState(main);
    const dropped = await dropRemovedModels(main, graph, lastBuilds).catch((cause: unknown) => {
      throw new FanlakeError(MODEL_ERROR_CODES.modelFailed, `dropping what removed models left in the warehouse failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    });
    const droppedResults = dropped.map((relation): ModelResult => ({ model: relation.name, schema: relation.schema, materialized: relation.kind, status: 'dropped', seconds: 0, reason: 'its model is no longer in the project' }));
    for (const result of droppedResults) options.onEvent?.({ type: 'node-finished', result });
    const existing = await relationKinds(main);
    // raw is not changed by a build, so one look suffices
    const sources = new Set([...existing.keys()].filter((relation) => relation.startsWith(`${SOURCE_SCHEMA}.`)));
    const inputs = await BuildInputs.read(main, graph, sources);
    // What each relation holds, for its children's fingerprints; set as this build's nodes finish.
    const contents = new Map<string, string>();
    const contentOf = (relation: string): string => contents.get(relation) ?? standingContent(relation);
    // A relation this build does not make: a table holds what its last build wrote, a view reads its inputs live.
    const standingContent = (relation: string): string => {
      const stored = lastBuilds.get(relation)?.content;
      return holdsRows(graph.nodes.get(relation)!) && stored !== undefined && existing.has(relation.toLowerCase()) ? stored : inputs.fingerprint(relation, contentOf);
    };
    // An incremental model merges onto its last build only while its definition is the same.
    const redefined = (relation: string) => lastBuilds.has(relation) && lastBuilds.get(relation)!.definition !== inputs.definition(relation, contentOf);
    const optional = new Set(project.sources.filter((source) => source.optional).map((source) => source.relation.toLowerCase()));
    // Incremental models this build writes in full. Their children's increments follow what
    // changed in them (a high-water mark, a change stamp), which a rewrite does not move: a
    // remapped order type rewrites fct_tickets without a newer _extracted_at. Such a child is
    // built in full too.
    const builtInFull = new Set<string>();
    const isIncremental = (relation: string) => {
      const parent = graph.nodes.get(relation);
      return parent?.kind === 'model' && parent.model.materialized === 'incremental';
    };
    const inFull = (relation: string) =>
      (options.fullRefresh ?? false) ||
      redefined(relation) ||
      !existing.has(relation.toLowerCase()) ||
      (isIncremental(relation) && graph.nodes.get(relation)!.parents.some((parent) => builtInFull.has(parent)));

    const results = new Map<string, ModelResult>();
    // The identity model is trained (when it must be) once, before the first model that
    // predicts with it, on that model's connection; the others that do wait for it.
    let identityPrepared: Promise<void> | undefined;
    let trained = false;
    const prepareIdentityModel = (connection: DuckDBConnection) =>
      (identityPrepared ??= identityModel
        .prepare(connection, async (macro) => {
          await createMacro(connection, macro);
          inputs.replaceMacro(macro.name, macro.sql);
          trained = true;
        })
        .then((outcome) => {
          if (outcome) options.onEvent?.(outcome);
        }));
    // --full-refresh and a first build build one model at a time: each query of a full build
    // keeps the cores busy on its own, and two at once cost CPU for no wall time (docs/decisions.md
    // "Two models at once")
    const concurrency = options.fullRefresh || lastBuilds.size === 0 ? 1 : (options.concurrency ?? DEFAULT_BUILD_CONCURRENCY);
    const waitingOn = new Map(order.map((relation) => [relation, descendants(graph, relation).size]));
    // each slot a connection of its own: the main one and those opened for the build
    const outcomes = await withConnections(instance, main, concurrency, (connections) => runGraph({
      order,
      parentsOf: (relation) => graph.nodes.get(relation)!.parents,
      concurrency: connections.length,
      // the models more models wait for first, so the longest chain (identity, then the fans)
      // is not held up behind models nothing waits for
      priority: (relation) => waitingOn.get(relation)!,
      run: async (relation, slot) => {
        const node = graph.nodes.get(relation)!;
        const connection = connections[slot]!;
        if (node.kind === 'model' && callsMacro(graph, node.macros, IDENTITY_MODEL_MACRO)) await prepareIdentityModel(connection);
        const fingerprint = inputs.fingerprint(relation, contentOf);
        const last = lastBuilds.get(relation);
        const unchanged = !options.fullRefresh && node.kind === 'model' && existing.has(relation.toLowerCase()) && last?.fingerprint === fingerprint;
        // what cannot be snapshotted (a fans table of another shape) is built without its churn;
        // fans left as they are moved nobody (FanSnapshot.unchanged)
        const fans = relation !== FANS_RELATION ? undefined : unchanged ? FanSnapshot.unchanged() : await FanSnapshot.take(connection, existing.has(relation.toLowerCase())).catch(() => undefined);
        let result: ModelResult;
        if (unchanged) {
          result = { ...identity(node), status: 'unchanged', seconds: 0 };
          contents.set(relation, last.content ?? fingerprint);
        } else {
          const full = inFull(relation);
          if (full && isIncremental(relation)) builtInFull.add(relation);
          result = await buildNode(connection, node, existing.get(relation.toLowerCase()), sources, optional, full, absentParents(graph, node, chosen, existing, sources));
          if (result.status === 'ok') {
            crashPoint('build:model-written');
            const started = performance.now();
            try {
              const content = await contentAfterBuild(connection, node, result, fingerprint, last?.content, (graph.children.get(relation)?.length ?? 0) > 0);
              contents.set(relation, content);
              if (node.kind === 'model') await recordBuild(connection, relation, { fingerprint, definition: inputs.definition(relation, contentOf), content });
            } catch (cause) {
              // Written, but not recorded as built: a failure (its children are skipped), and
              // the next build writes it again.
              result = { ...identity(node), status: 'failed', seconds: result.seconds, error: modelFailure(MODEL_ERROR_CODES.modelFailed, relation, cause) };
            }
            result.seconds = Math.round((result.seconds + (performance.now() - started) / 1000) * 1000) / 1000;
          }
        }
        if (fans && (result.status === 'ok' || result.status === 'unchanged')) {
          try {
            const churn = await recordChurn(connection, {
              ...(await fans.compare(connection)),
              buildId: options.buildId ?? newRunId(),
              modelVersion: identityModel.version,
              warnShare: options.identityChurnWarnShare ?? DEFAULT_CHURN_WARN_SHARE,
              ...(identityModel.retrainDue === undefined ? {} : { retrainDue: identityModel.retrainDue }),
            });
            options.onEvent?.({ type: 'identity-churn', churn });
          } catch (cause) {
            result = { ...result, status: 'failed', error: modelFailure(MODEL_ERROR_CODES.modelFailed, relation, cause) };
          }
        }
        results.set(relation, result);
        options.onEvent?.({ type: 'node-finished', result });
        // A skipped model blocks its descendants just as a failed one does.
        return { failed: result.status !== 'ok' && result.status !== 'unchanged', value: result };
      },
    }));
    for (const [relation, outcome] of outcomes) {
      if (outcome.status !== 'skipped') continue;
      const node = graph.nodes.get(relation)!;
      const ancestor = results.get(outcome.failedAncestor);
      const what = ancestor?.status === 'skipped' ? `was skipped (${ancestor.reason})` : 'failed';
      const reason =
        outcome.via === outcome.failedAncestor ? `parent ${outcome.failedAncestor} ${what}` : `upstream ${outcome.failedAncestor} ${what} (via ${outcome.via})`;
      const result: ModelResult = { ...identity(node), status: 'skipped', seconds: 0, reason };
      results.set(relation, result);
      options.onEvent?.({ type: 'node-finished', result });
    }

    if (trained) await keepTrainedMacros(parses, macroDefinitions);
    await writeLineage(options.dataDir, await collectLineage(main, graph));
    return [...droppedResults, ...order.map((relation) => results.get(relation)!)];
  } finally {
    main.closeSync();
    if (options.instance === undefined) instance.closeSync();
  }
}

/** How a build opens the warehouse: with its budget, keeping the memory of one query for the next. */
export function buildDatabaseOptions(options: DatabaseOptions): DatabaseOptions {
  return { ...options, keptBlockMemory: options.keptBlockMemory ?? options.memoryLimit };
}

/**
 * Models built at once by default, each on a connection of its own. A quiet build is mostly
 * small models, each a few statements that leave a core idle between them (planning, commits,
 * the last thread of a query), so two at once keep both cores busy; a large model's query
 * already uses them (docs/decisions.md "Two models at once").
 */
export const DEFAULT_BUILD_CONCURRENCY = 2;

/** The macro whose callers predict with the stored identity model: it is trained, when it must be, just before the first of them builds. */
const IDENTITY_MODEL_MACRO = 'identity_model';

/** The model that gives each record its fan: its fan_ids before and after it builds are the build's churn. */
const FANS_RELATION = 'intermediate.int_identity_clusters';

/** Default of the setting identityChurnWarnShare: a build that moves more than this share of the records' fan_ids is warned about. */
export const DEFAULT_CHURN_WARN_SHARE = 0.05;

/**
 * Each record's fan_id as the fans' model held it before this build wrote it, in a temp table,
 * both as 64-bit hashes, and the fans after as the same hashes (a view): only counts are
 * compared (how many records moved, fans merged and split), and integers join and count faster
 * than the keys' and ids' text (the copy and comparison of a full build of a scale-10 club took
 * 0.20 s CPU instead of 0.33). The records already count on no two keys hashing alike (their
 * record_number, tested unique); a fan_id is itself 64 bits of a hash.
 */
class FanSnapshot {
  private static readonly TABLE = 'fan_ids_before_build';
  private static readonly AFTER = 'fan_ids_after_build';
  private static readonly CHANGED = 'fan_records_changed_by_build';
  private static readonly HASHED = 'hash(record_key) as record_key, hash(fan_id) as fan_id';

  private constructor(
    private readonly taken: boolean,
    /** The fans' model's writes as the snapshot was taken, to find the records its merge changed. */
    private readonly changes?: ModelChanges,
  ) {}

  static async take(connection: DuckDBConnection, exists: boolean): Promise<FanSnapshot> {
    await connection.run(
      exists
        ? `create or replace temp table ${FanSnapshot.TABLE} as select ${FanSnapshot.HASHED} from ${FANS_RELATION}`
        : `create or replace temp table ${FanSnapshot.TABLE} (record_key ubigint, fan_id ubigint)`,
    );
    return new FanSnapshot(true, (await readModelChanges(connection)).get(FANS_RELATION));
  }

  /** The fans of a build that leaves the model as it is: compared with themselves, without a copy. */
  static unchanged(): FanSnapshot {
    return new FanSnapshot(false);
  }

  /**
   * The churn from the snapshot to the fans now. When the build merged the fans by key, only
   * the records it wrote can have moved, and the comparison reads those and their fans' records
   * (compareFans' `changed`): joining all records before and after cost a quiet build 0.2 s.
   */
  async compare(connection: DuckDBConnection) {
    if (!this.taken) return unchangedFans(connection, FANS_RELATION);
    try {
      await connection.run(`create or replace temp view ${FanSnapshot.AFTER} as select ${FanSnapshot.HASHED} from ${FANS_RELATION}`);
      const changed = await keysChangedSince(connection, FANS_RELATION, this.changes, 'record_key');
      if (changed === undefined) return await compareFans(connection, FanSnapshot.TABLE, FanSnapshot.AFTER, 0);
      await connection.run(`create or replace temp table ${FanSnapshot.CHANGED} as select hash(record_key) as record_key from (${changed})`);
      return await compareFans(connection, FanSnapshot.TABLE, FanSnapshot.AFTER, 0, FanSnapshot.CHANGED);
    } finally {
      await connection.run(`drop table if exists ${FanSnapshot.TABLE}`);
      await connection.run(`drop view if exists ${FanSnapshot.AFTER}`);
      await connection.run(`drop table if exists ${FanSnapshot.CHANGED}`);
    }
  }
}

/**
 * After a training, the parses of the macros as the next build will give them (the model now
 * in force), so that build finds them kept: parsed once more here, in the rare build that
 * trains. A cache: what fails here costs the next build a parse, not this build its result.
 */
async function keepTrainedMacros(parses: ParseCache, definitions: () => MacroDefinition[]): Promise<void> {
  try {
    const macros = definitions();
    const parsed = await parseMacros(macros);
    if (parsed.problems.length > 0) return;
    parses.keepMacros(macros, [...parsed.nodes.values()]);
    await parses.save();
  } catch {
    // the next build parses them
  }
}

/** Whether `macros`, or a macro they call in turn, is `name`. */
function callsMacro(graph: ModelGraph, macros: readonly string[], name: string, seen = new Set<string>()): boolean {
  return macros.some((macro) => {
    if (macro === name) return true;
    if (seen.has(macro)) return false;
    seen.add(macro);
    return callsMacro(graph, graph.macros.get(macro)?.calls ?? [], name, seen);
  });
}

/** @throws UsageError when the review threshold is not below the link threshold. */
function checkedThresholds(thresholds: IdentityThresholds): IdentityThresholds {
  if (!(thresholds.review < thresholds.link)) {
    throw new UsageError(`the identity review threshold (${thresholds.review}) must be below the link threshold (${thresholds.link})`);
  }
  return thresholds;
}

/** The graph of the SQL project, parsed with a throwaway in-memory DuckDB; for tools and tests. */
export async function loadModelGraph(modelsDir: string = DEFAULT_MODELS_DIR, instance?: DuckDBInstance): Promise<ModelGraph> {
  const project = await discoverProject(modelsDir);
  const owned = instance ?? (await openDatabase(IN_MEMORY, { threads: 1 }));
  try {
    const connection = await connect(owned);
    try {
      return await buildGraph(project, connection);
    } finally {
      connection.closeSync();
    }
  } finally {
    if (!instance) owned.closeSync();
  }
}

/** A parent that is neither selected nor in the warehouse, and the raw tables missing upstream of it. */
interface AbsentParent {
  relation: string;
  missingSources: string[];
}

/**
 * Parents of `node` that this build will not make and the warehouse does not hold (a
 * `--select` that leaves out a parent skipped earlier because its optional source was not
 * loaded), each with the raw tables missing anywhere upstream of it.
 */
function absentParents(graph: ModelGraph, node: GraphNode, chosen: ReadonlySet<string>, existing: ReadonlyMap<string, RelationKind>, sources: ReadonlySet<string>): AbsentParent[] {
  const missingUpstream = (relation: string, seen = new Set<string>()): string[] => {
    if (seen.has(relation)) return [];
    seen.add(relation);
    const parent = graph.nodes.get(relation);
    if (!parent) return [];
    return [...new Set([...parent.sources.filter((source) => !sources.has(source)), ...parent.parents.flatMap((up) => missingUpstream(up, seen))])];
  };
  return node.parents
    .filter((relation) => !chosen.has(relation) && !existing.has(relation.toLowerCase()))
    .map((relation) => ({ relation, missingSources: missingUpstream(relation) }));
}

async function buildNode(
  connection: DuckDBConnection,
  node: GraphNode,
  /** What the warehouse held under the node's name as the build started. */
  existing: RelationKind | undefined,
  sources: ReadonlySet<string>,
  optional: ReadonlySet<string>,
  fullRefresh: boolean,
  absent: readonly AbsentParent[] = [],
): Promise<ModelResult> {
  const started = performance.now();
  const seconds = () => Math.round(performance.now() - started) / 1000;
  try {
    if (node.kind === 'seed') {
      const { rows } = await loadSeed(connection, node.seed);
      return { ...identity(node), status: 'ok', rows, seconds: seconds() };
    }
    const missing = node.sources.filter((source) => !sources.has(source));
    if (missing.length > 0 && missing.every((source) => optional.has(source))) {
      return { ...identity(node), status: 'skipped', seconds: 0, reason: `optional source ${missing.join(', ')} is not loaded` };
    }
    const upstream = [...new Set(absent.flatMap((parent) => parent.missingSources))];
    if (absent.length > 0 && upstream.length > 0 && upstream.every((source) => optional.has(source))) {
      const parents = absent.map((parent) => parent.relation).join(', ');
      return { ...identity(node), status: 'skipped', seconds: 0, reason: `parent ${parents} is not built: optional source ${upstream.join(', ')} is not loaded` };
    }
    if (absent.length > 0 && missing.length === 0) {
      const parents = absent.map((parent) => parent.relation).join(', ');
      throw new FanlakeError(MODEL_ERROR_CODES.modelFailed, `${node.relation} (${node.file}) reads ${parents}, which is not built and not selected; build it first (--select +${node.name})`, {
        context: { model: node.relation, parents: absent.map((parent) => parent.relation) },
      });
    }
    if (missing.length > 0) {
      throw new FanlakeError(
        MODEL_ERROR_CODES.sourceMissing,
        `${node.relation} (${node.file}) reads ${missing.join(', ')}, not in the warehouse; extract and load ${missing.length > 1 ? 'them' : 'it'} first`,
        { context: { model: node.relation, missing } },
      );
    }
    const { rows, changed } = await materializeModel(connection, node.model, { existing, fullRefresh, firstBuildSql: node.firstBuildSql });
    return { ...identity(node), status: 'ok', ...(rows === undefined ? {} : { rows }), ...(changed === undefined ? {} : { changed }), seconds: seconds() };
  } catch (cause) {
    const code = node.kind === 'seed' ? MODEL_ERROR_CODES.seedFailed : MODEL_ERROR_CODES.modelFailed;
    return { ...identity(node), status: 'failed', seconds: seconds(), error: modelFailure(code, node.relation, cause) };
  }
}

/**
 * What a model just built holds, as its children's fingerprints see it (see "What a build
 * rebuilds" in index.ts). A view or seed: its fingerprint; so is a table no model reads. A
 * table others read: the signature of its rows, except that an incremental model knows
 * without a scan. Its merge changed no row: it holds what it held. Any row changed, or it was
 * built in full: it holds something new, named by a token never used before, so its children
 * rebuild, as they must (rows that come back the same cost them a rebuild, never a stale
 * answer).
 */
async function contentAfterBuild(
  connection: DuckDBConnection,
  node: GraphNode,
  result: ModelResult,
  fingerprint: string,
  lastContent: string | undefined,
  hasChildren: boolean,
): Promise<string> {
  if (!holdsRows(node) || !hasChildren) return fingerprint;
  if (result.changed === false && lastContent !== undefined) return lastContent;
  if (result.changed === true) return `changed ${randomUUID()}`;
  // A table that cannot be summed (a type hash() refuses) counts as changed whenever rebuilt.
  return contentSignature(connection, node.relation).catch(() => fingerprint);
}

/** A model materialized as a table (incremental ones too): what it holds stays until its next build. */
function holdsRows(node: GraphNode): boolean {
  return node.kind === 'model' && node.model.materialized !== 'view';
}

function identity(node: GraphNode): Pick<ModelResult, 'model' | 'schema' | 'materialized'> {
  return { model: node.name, schema: node.schema, materialized: node.kind === 'seed' ? 'seed' : node.model.materialized };
}
