import type { DuckDBConnection } from '@duckdb/node-api';
import { queryRows } from '../../core/duckdb.js';
import { MODELS_TABLE } from './store.js';

/** Where a version's frozen statistics are kept (declared in warehouse/meta-schema.ts). */
export const TERM_FREQUENCIES_TABLE = 'meta.identity_model_term_frequencies';
export const CROWDED_BLOCKS_TABLE = 'meta.identity_model_crowded_blocks';

/**
 * Freezes, once per model version, what a pair's score would otherwise take from every other
 * record: how many people carry each name (the term frequencies an agreeing name is weighed
 * by) and which block values are too crowded to compare anyone (a value on more records than
 * its rule's cap). Taken from the records as they are the first time the version predicts
 * (just after it is trained, or when a warehouse of an earlier fanlake adopts it), and kept
 * until the next version. So a pair's candidacy and score depend on its two records alone: an
 * incremental build scores only the pairs of records that changed and equals a full rebuild,
 * and a load does not move the scores of pairs it did not touch. A version trained on much
 * fewer records makes a retrain due as before (model-state.ts).
 */
export async function freezeModelStatistics(connection: DuckDBConnection, version: number): Promise<void> {
  const [model] = await queryRows(connection, `select statistics_frozen_at is not null as frozen from ${MODELS_TABLE} where model_version = ${version}`);
  if (!model || model.frozen === true) return;
  await connection.run('begin transaction');
  try {
    await connection.run(`delete from ${TERM_FREQUENCIES_TABLE} where model_version = ${version}`);
    await connection.run(`delete from ${CROWDED_BLOCKS_TABLE} where model_version = ${version}`);
    // a word one person carries weighs as any unlisted word (statistics_people), so no single
    // person's name is kept here
    await connection.run(
      `insert into ${TERM_FREQUENCIES_TABLE}
       select ${version}, word, people, term_frequency from macros.identity_term_frequencies('intermediate.int_identity_records') where people > 1`,
    );
    // from the records, which hold every value blocked on: the comparables view would weigh
    // every name by its term frequency first, which blocking does not read
    await connection.run(
      `insert into ${CROWDED_BLOCKS_TABLE}
       select ${version}, block_value from macros.identity_crowded_blocks('intermediate.int_identity_records')`,
    );
    await connection.run(
      `update ${MODELS_TABLE} set statistics_frozen_at = now(),
         statistics_people = (select count(distinct entity_key) from intermediate.int_identity_records)
       where model_version = ${version}`,
    );
    await connection.run('commit');
  } catch (error) {
    await connection.run('rollback');
    throw error;
  }
}
