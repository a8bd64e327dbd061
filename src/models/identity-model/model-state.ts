import type { DuckDBConnection } from '@duckdb/node-api';
import { queryRows, quoteLiteral } from '../../core/duckdb.js';
import { UsageError } from '../../core/errors.js';
import { ensureMetaSchema } from '../../warehouse/meta-schema.js';
import type { MacroDefinition } from '../discover-project.js';
import { contentSignature } from '../build-state.js';
import type { IdentityModelConfig } from './config.js';
import { type AppliedBy, putInForce, readInForce } from './in-force.js';
import { identityModelMacros, type IdentityThresholds } from './macros.js';
import { MODELS_TABLE, readStoredModel, type StoredModel } from './store.js';
import { trainIdentityModel } from './train.js';
import { freezeModelStatistics } from './frozen-statistics.js';

/**
 * When a build trains the identity model: `auto` (build): only when no model is in force, or a
 * retrain is due and `autoRetrain` is on; `candidate` (`fanlake identity train`, on a copy of
 * the warehouse): always, unless `reuse` was trained on the records as they are, and put in
 * force in that copy.
 */
export interface IdentityTrainingOptions {
  mode: 'auto' | 'candidate';
  /** Setting identityAutoRetrain: a retrain that is due is trained and put in force at once (what fanlake did before it kept a model in force). */
  autoRetrain?: boolean;
  /** A candidate stored earlier, applied instead of training another when it fits the configuration and the records. */
  reuse?: StoredModel;
}

/** What a build did about the identity model, reported once as a build event. */
export type IdentityModelOutcome =
  | { type: 'identity-trained'; model: StoredModel; appliedBy: AppliedBy; reason: string; seconds: number }
  | { type: 'identity-retrain-due'; version: number; reason: string };

/** The identity model a build predicts with: the version in force, its own configuration, and training when it must. */
export class IdentityModelState {
  private training: Promise<IdentityModelOutcome | undefined> | undefined;
  /** Why a retrain is due under the model in force, once the first model predicting with it asked. */
  retrainDue: string | undefined;

  private constructor(
    private readonly config: IdentityModelConfig | undefined,
    private model: StoredModel | undefined,
    private readonly thresholds: IdentityThresholds,
    private readonly options: IdentityTrainingOptions,
  ) {}

  /**
   * The model in force. A warehouse of an older fanlake has none recorded: its newest model
   * was in force when it fitted the configuration, so that one is adopted (and given the
   * configuration it fits), as is a candidate `identity train` stored before any build;
   * otherwise the first build trains one.
   */
  static async read(connection: DuckDBConnection, config: IdentityModelConfig | undefined, thresholds: IdentityThresholds, options: IdentityTrainingOptions): Promise<IdentityModelState> {
    if (!config) return new IdentityModelState(config, undefined, thresholds, options);
    await ensureMetaSchema(connection);
    const inForce = await readInForce(connection);
    let model = await adoptFilesHash(connection, config, inForce ? await readStoredModel(connection, inForce.version) : undefined);
    if (!inForce) {
      const newest = await adoptFilesHash(connection, config, await readStoredModel(connection));
      if (newest?.definitionHash === config.definitionHash) {
        await putInForce(connection, newest.version, 'adopted', 'none was in force: the newest stored model fitting the configuration');
        model = newest;
      }
    }
    if (model && !model.definition && model.definitionHash === config.definitionHash) {
      // stored by an older fanlake without its configuration: it is the one in the files now
      await connection.run(`update ${MODELS_TABLE} set definition = ${quoteLiteral(JSON.stringify(config))} where model_version = ${model.version}`);
      model = { ...model, definition: config };
    }
    return new IdentityModelState(config, model, thresholds, options);
  }

  /**
   * The model's macros, from the configuration it was trained under: a changed configuration is
   * not applied until a new version is put in force.
   *
   * @throws UsageError when the model in force was stored without its configuration and the files changed since.
   */
  macros(): MacroDefinition[] {
    if (!this.config) return [];
    if (this.trainsUnderFiles()) return identityModelMacros(this.config, this.model, this.thresholds);
    if (this.model && !this.model.definition) {
      throw new UsageError(
        `identity model version ${this.model.version} is in force, but it was stored without its configuration and sql/identity/ has changed since it was trained: restore the files, or put a new version in force with fanlake identity train --apply`,
      );
    }
    return identityModelMacros(this.model?.definition ?? this.config, this.model, this.thresholds);
  }

  /**
   * Whether this build will train under the configuration in the files, so the models before
   * training (int_identity_comparables blocks by it) must follow the files from the start.
   */
  private trainsUnderFiles(): boolean {
    if (!this.config || !this.model) return true;
    return this.options.mode === 'candidate' || (this.options.autoRetrain === true && this.model.definitionHash !== this.config.definitionHash);
  }

  /** The version the build predicts with (0: none yet). */
  get version(): number {
    return this.model?.version ?? 0;
  }

  /**
   * Decides, once per build, just before the first model that predicts with the identity model:
   * trains (and puts in force) when none is in force, when a preview asks for a candidate, or
   * when a retrain is due and autoRetrain is on; else only notes a retrain that is due. After a
   * training, writes the new model's macros into the warehouse and hands them to `replaced`,
   * so the models that predict with it build again.
   */
  prepare(connection: DuckDBConnection, replaced: (macro: MacroDefinition) => Promise<void>): Promise<IdentityModelOutcome | undefined> {
    this.training ??= (async () => {
      const outcome = await this.trainWhenDue(connection, replaced);
      if (this.model) await freezeModelStatistics(connection, this.model.version);
      return outcome;
    })();
    return this.training;
  }

  private async trainWhenDue(connection: DuckDBConnection, replaced: (macro: MacroDefinition) => Promise<void>): Promise<IdentityModelOutcome | undefined> {
    if (!this.config) return undefined;
    const decision = await this.decide(connection, this.config);
    if (decision === undefined) return undefined;
    if (decision.appliedBy === undefined) return { type: 'identity-retrain-due', version: this.version, reason: decision.reason };
    const started = performance.now();
    const signature = await contentSignature(connection, 'intermediate.int_identity_comparables');
    const reuse = this.options.reuse;
    this.model =
      reuse && reuse.definitionHash === this.config.definitionHash && reuse.recordsSignature === signature
        ? reuse
        : await trainIdentityModel(connection, this.config, signature);
    // as the next build will read it (its m and u as stored, its levels in stored order), so
    // the model's macros are the same text in both and nothing is taken as redefined
    this.model = (await readStoredModel(connection, this.model.version)) ?? this.model;
    await putInForce(connection, this.model.version, decision.appliedBy, decision.reason);
    for (const macro of this.macros().filter((candidate) => TRAINED_MACROS.has(candidate.name))) await replaced(macro);
    this.retrainDue = undefined;
    return { type: 'identity-trained', model: this.model, appliedBy: decision.appliedBy, reason: decision.reason, seconds: (performance.now() - started) / 1000 };
  }

  private async decide(connection: DuckDBConnection, config: IdentityModelConfig): Promise<{ appliedBy?: AppliedBy; reason: string } | undefined> {
    if (this.options.mode === 'candidate') return { appliedBy: 'identity train (preview)', reason: 'a candidate to compare with the model in force' };
    if (!this.model) return { appliedBy: 'first build', reason: 'no model is in force yet' };
    const reasons: string[] = [];
    if (this.model.definitionHash !== config.definitionHash) reasons.push(`the identity configuration (sql/identity/) changed since version ${this.model.version} was trained`);
    const [row] = await queryRows(connection, 'select count(*) as records from intermediate.int_identity_records');
    const records = Number(row!.records);
    const growth = records / Math.max(this.model.records, 1) - 1;
    if (growth >= config.training.retrain_growth) {
      reasons.push(`the records grew by ${Math.round(growth * 100)}% since version ${this.model.version} was trained (${this.model.records} → ${records}; retrain_growth ${config.training.retrain_growth})`);
    }
    if (reasons.length === 0) return undefined;
    this.retrainDue = reasons.join('; ');
    return this.options.autoRetrain ? { appliedBy: 'autoRetrain', reason: this.retrainDue } : { reason: this.retrainDue };
  }
}

/**
 * A model stored when the configuration's hash covered the four files alone (config.ts
 * filesHash) and trained under the files as they are: it is taken as trained under the
 * configuration in force (its hash rewritten), as the level SQL it was trained with is not
 * known. So a fanlake whose hash covers the SQL too neither fails nor retrains on a warehouse
 * of an earlier one; a later change of the files or the SQL makes a retrain due as usual.
 */
async function adoptFilesHash(connection: DuckDBConnection, config: IdentityModelConfig, model: StoredModel | undefined): Promise<StoredModel | undefined> {
  if (!model || model.definitionHash === config.definitionHash || model.definitionHash !== config.filesHash) return model;
  await connection.run(`update ${MODELS_TABLE} set definition_hash = ${quoteLiteral(config.definitionHash)} where model_version = ${model.version}`);
  const definition = model.definition && { ...model.definition, definitionHash: config.definitionHash, filesHash: config.filesHash };
  if (definition) await connection.run(`update ${MODELS_TABLE} set definition = ${quoteLiteral(JSON.stringify(definition))} where model_version = ${model.version}`);
  return { ...model, definitionHash: config.definitionHash, ...(definition ? { definition } : {}) };
}

/** The macros training rewrites. */
const TRAINED_MACROS = new Set(['identity_model', 'identity_model_version', 'identity_prior_weight', 'identity_birth_dates_tell_apart', 'identity_first_names_tell_apart', 'identity_model_term_frequencies', 'identity_model_rare_term_frequency', 'identity_model_crowded_blocks']);
