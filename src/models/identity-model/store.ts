import type { DuckDBConnection } from '@duckdb/node-api';
import { insertRows, queryRows, quoteLiteral } from '../../core/duckdb.js';
import { ensureMetaSchema } from '../../warehouse/meta-schema.js';
import type { IdentityModelConfig } from './config.js';

/** Where trained identity models are kept (declared in warehouse/meta-schema.ts): one row per training, and its levels. Reports may read both. */
export const MODELS_TABLE = 'meta.identity_models';
export const LEVELS_TABLE = 'meta.identity_model_levels';

/** One comparison level of a trained model: level 0 is a value missing on a side (no m or u). */
export interface StoredLevel {
  comparison: string;
  levelIndex: number;
  level: string;
  m: number | null;
  u: number | null;
  /** Random pairs (of the u sample) at this level; 0 where u is the floor. */
  uPairs: number;
  /** Training blocking rules whose EM estimated this m (0: the starting value, never trained). */
  mSessions: number;
}

export interface StoredModel {
  version: number;
  trainedAt: string;
  /** The configuration it was trained under (config.ts definitionHash). */
  definitionHash: string;
  /** Records it was trained on: build trains again when they have grown by a set share. */
  records: number;
  /** The chance that two random records are one person. */
  prior: number;
  /** Pairs the deterministic rules found, which the prior is estimated from. */
  priorPairs: number;
  uSamplePairs: number;
  /** What each EM session did (rule, pairs, iterations, converged, its own λ). */
  sessions: unknown[];
  levels: StoredLevel[];
  /**
   * The configuration it was trained under, so that it predicts as it was trained whatever the
   * files say now; absent for a model stored by an older fanlake (its definitionHash names it).
   */
  definition?: IdentityModelConfig;
  /** What the records it was trained on held (build-state.ts contentSignature): a candidate trained on the records as they are is applied without training again. */
  recordsSignature?: string;
}

/** The newest stored model, or version `version`; undefined when there is none (or the tables do not exist yet). */
export async function readStoredModel(connection: DuckDBConnection, version?: number): Promise<StoredModel | undefined> {
  const exists = await queryRows(connection, `select 1 from duckdb_tables() where schema_name = 'meta' and table_name = 'identity_models'`);
  if (exists.length === 0) return undefined;
  const [row] = await queryRows(
    connection,
    `select model_version, cast(trained_at as varchar) as trained_at, definition_hash, records, prior, prior_pairs, u_sample_pairs, cast(sessions as varchar) as sessions,
         cast(definition as varchar) as definition, records_signature
     from ${MODELS_TABLE} ${version === undefined ? '' : `where model_version = ${Number(version)}`} order by model_version desc limit 1`,
  );
  if (!row) return undefined;
  const levels = await queryRows(
    connection,
    `select comparison, level_index, level, m, u, u_pairs, m_sessions from ${LEVELS_TABLE} where model_version = ${Number(row.model_version)} order by comparison, level_index`,
  );
  return {
    version: Number(row.model_version),
    trainedAt: String(row.trained_at),
    definitionHash: String(row.definition_hash),
    records: Number(row.records),
    prior: Number(row.prior),
    priorPairs: Number(row.prior_pairs),
    uSamplePairs: Number(row.u_sample_pairs),
    sessions: JSON.parse(String(row.sessions)) as unknown[],
    ...(row.definition === null || row.definition === undefined ? {} : { definition: JSON.parse(String(row.definition)) as IdentityModelConfig }),
    ...(row.records_signature === null || row.records_signature === undefined ? {} : { recordsSignature: String(row.records_signature) }),
    levels: levels.map((level) => ({
      comparison: String(level.comparison),
      levelIndex: Number(level.level_index),
      level: String(level.level),
      m: level.m === null ? null : Number(level.m),
      u: level.u === null ? null : Number(level.u),
      uPairs: Number(level.u_pairs),
      mSessions: Number(level.m_sessions),
    })),
  };
}

/** Stores a trained model as the next version; returns it with its version. */
export async function storeModel(connection: DuckDBConnection, model: Omit<StoredModel, 'version' | 'trainedAt'>): Promise<StoredModel> {
  await ensureMetaSchema(connection);
  const [row] = await queryRows(connection, `select coalesce(max(model_version), 0) + 1 as version, cast(now() as varchar) as trained_at from ${MODELS_TABLE}`);
  const version = Number(row!.version);
  await connection.run('begin transaction');
  try {
    await connection.run(
      `insert into ${MODELS_TABLE} values (${version}, now(), ${quoteLiteral(model.definitionHash)}, ${model.records}, ${model.prior}, ${model.priorPairs}, ${model.uSamplePairs}, ${quoteLiteral(JSON.stringify(model.sessions))},
         ${model.definition ? quoteLiteral(JSON.stringify(model.definition)) : 'null'}, ${model.recordsSignature ? quoteLiteral(model.recordsSignature) : 'null'}, null, null)`,
    );
    await insertRows(
      connection,
      `insert into ${LEVELS_TABLE}`,
      '($1, $2, $3, $4, $5, $6, $7, $8)',
      model.levels.map((level) => [version, level.comparison, level.levelIndex, level.level, level.m, level.u, level.uPairs, level.mSessions]),
    );
    await connection.run('commit');
  } catch (error) {
    await connection.run('rollback');
    throw error;
  }
  return { ...model, version, trainedAt: String(row!.trained_at) };
}
