import { access, copyFile, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { queryRows, quoteLiteral, withConnection } from '../../core/duckdb.js';
import { FanlakeError } from '../../core/errors.js';
import { CODE } from '../../core/error-codes.js';
import { warehousePath } from '../../raw-contract/index.js';
import { ensureMetaSchema } from '../../warehouse/meta-schema.js';
import { buildModels, type BuildModelsOptions, type ModelResult } from '../build-models.js';
import { defaultOverridesFile } from '../identity-overrides.js';
import { compareFans, type FanChurn, movedRecordsSql } from './fan-churn.js';
import { readInForce } from './in-force.js';
import { readStoredModel, storeModel, type StoredModel } from './store.js';

/** What a candidate identity model would change, against the fans as the warehouse holds them. */
export interface CandidatePreview {
  model: StoredModel;
  /** The candidate was trained earlier (the newest version, never in force) on these records under this configuration, and not trained again. */
  reused: boolean;
  churn: FanChurn;
  /** Every record whose fan_id would move, as CSV (record_key, fan_id_now, fan_id_after, how). */
  movedFile: string;
  /** The build of the copy, for its failures. */
  results: ModelResult[];
}

/** The folder under the data dir where previews are made and their moved records kept. */
export const IDENTITY_DIR = 'identity';

/**
 * Trains a candidate version, or takes the one the last preview trained when it still fits,
 * and shows what it would change without changing a fan_id: on a copy of the warehouse, the
 * candidate is put in force and the fans are built up to int_identity_clusters by the very
 * code `build` runs, then compared record by record with the warehouse's own fans. The copy
 * builds from the same stored state as the next build of the warehouse under the candidate,
 * so the records listed are exactly those that build moves (docs/decisions.md). The candidate
 * is stored in the warehouse, not in force.
 *
 * @throws FanlakeError E_WAREHOUSE_MISSING before anything was loaded.
 */
export async function previewCandidate(options: Omit<BuildModelsOptions, 'select' | 'identityTraining' | 'warehousePath' | 'onEvent' | 'buildId'>): Promise<CandidatePreview> {
  const source = warehousePath(options.dataDir);
  if (!(await exists(source))) {
    throw new FanlakeError(CODE.E_WAREHOUSE_MISSING, `no warehouse at ${source} yet: run fanlake extract and fanlake load first`, { context: { path: source } });
  }
  const pending = await withConnection(source, async (connection) => {
    await ensureMetaSchema(connection);
    const newest = await readStoredModel(connection);
    const inForce = await readInForce(connection);
    return newest && newest.version !== inForce?.version ? newest : undefined;
  }, options);
  const folder = join(options.dataDir, IDENTITY_DIR);
  const scratch = join(folder, 'preview');
  await rm(scratch, { recursive: true, force: true });
  await mkdir(scratch, { recursive: true });
  try {
    const copy = join(scratch, 'warehouse.duckdb');
    await copyFile(source, copy);
    if (await exists(`${source}.wal`)) await copyFile(`${source}.wal`, `${copy}.wal`);
    const overrides = options.identityOverridesFile ?? (await defaultOverridesFile(options.clubDir, options.dataDir));
    let model: StoredModel | undefined;
    const results = await buildModels({
      ...options,
      dataDir: scratch,
      warehousePath: copy,
      ...((await exists(overrides)) ? { identityOverridesFile: overrides } : {}),
      select: ['+int_identity_clusters'],
      identityTraining: { mode: 'candidate', ...(pending ? { reuse: pending } : {}) },
      buildId: 'identity train (preview)',
      onEvent: (event) => {
        if (event.type === 'identity-trained') model = event.model;
      },
    });
    const clusters = results.find((result) => result.model === 'int_identity_clusters');
    if (!model || !clusters || (clusters.status !== 'ok' && clusters.status !== 'unchanged')) {
      const failed = results.find((result) => result.error);
      throw new FanlakeError(CODE.E_MODEL_FAILED, `the candidate identity model could not be tried: ${failed?.error?.message ?? 'the models it is trained on and predicts with did not build'}`, {
        ...(failed?.error ? { cause: failed.error } : {}),
      });
    }
    const movedFile = join(folder, `model-v${model.version}-moved.csv`);
    const churn = await withConnection(copy, async (connection) => {
      await connection.run(`attach ${quoteLiteral(source)} as fans_now (read_only)`);
      const [held] = await queryRows(connection, `select count(*) as tables from duckdb_tables() where database_name = 'fans_now' and schema_name = 'intermediate' and table_name = 'int_identity_clusters'`);
      const now = Number(held!.tables) > 0 ? 'fans_now.intermediate.int_identity_clusters' : '(select null::varchar as record_key, null::varchar as fan_id limit 0)';
      const compared = await compareFans(connection, now, 'intermediate.int_identity_clusters');
      await connection.run(
        `copy (
            select record_key, fan_before as fan_id_now, fan_after as fan_id_after, how
            from (${movedRecordsSql(now, 'intermediate.int_identity_clusters')}) as moved
            order by record_key
        ) to ${quoteLiteral(movedFile)} (format csv, header)`,
      );
      return compared;
    }, options);
    const reused = pending?.version === model.version;
    if (!reused) {
      const stored = await withConnection(source, (connection) => storeModel(connection, model!), options);
      if (stored.version !== model.version) throw new FanlakeError(CODE.E_UNEXPECTED, `the candidate was version ${model.version} in the copy and ${stored.version} in the warehouse: another writer changed it`);
    }
    return { model, reused, churn, movedFile, results };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

const exists = (path: string) => access(path).then(() => true, () => false);
