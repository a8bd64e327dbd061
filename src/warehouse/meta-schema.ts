import type { DuckDBConnection } from '@duckdb/node-api';

/** Schema of fanlake's own run records; reports read it beside `marts`. */
export const META_SCHEMA = 'meta';

/**
 * The run records, declared once: `load` writes the first three in its transaction, `check`
 * writes `check_results`, training the identity model `identity_models` and its levels, putting
 * a version in force `identity_model_in_force`, and each build `identity_fan_churn`. Reports may
 * read exactly these tables of `meta`.
 */
export const META_TABLES = {
  /**
   * One row per resource per extraction run, from `$DATA/runs/<run id>.json`. `errors`: the
   * resource's error records (code, message, retryable, context); `messages`: its notes, and
   * for runs extracted before errors were structured, their errors in words (`errors` is `[]`).
   */
  extraction_runs: `
    run_id varchar not null,
    started_at timestamptz not null,
    finished_at timestamptz not null,
    source varchar not null,
    resource varchar not null,
    status varchar not null,
    rows bigint not null,
    quarantined bigint not null,
    requests bigint not null,
    retries bigint not null,
    seconds double not null,
    messages json not null,
    recorded_at timestamptz not null,
    errors json default '[]'`,
  /** One row per item a run quarantined, from the run's `quarantine.ndjson`, with the reason. */
  quarantined_records: `
    run_id varchar not null,
    source varchar not null,
    resource varchar not null,
    reason varchar not null,
    item json,
    recorded_at timestamptz not null`,
  /** One row per raw table, refreshed by each load that changes it: size, vanished records, newest data. */
  raw_tables: `
    table_name varchar not null,
    source varchar not null,
    resource varchar not null,
    row_count bigint not null,
    vanished_count bigint not null,
    newest_extracted_at timestamptz,
    newest_run_id varchar,
    loaded_at timestamptz not null`,
  /**
   * One row per data test per `check` run. Freshness tests also carry their measure and
   * thresholds. `carried_from`: the earlier check run whose result this row repeats, since
   * nothing the test reads changed (NULL when the test ran).
   */
  check_results: `
    check_run_id varchar not null,
    checked_at timestamptz not null,
    test_name varchar not null,
    kind varchar not null,
    target varchar,
    severity varchar not null,
    status varchar not null,
    failures bigint not null,
    message varchar,
    latest_at timestamptz,
    age_hours double,
    warn_after_hours double,
    error_after_hours double,
    carried_from varchar`,
  /**
   * One row per training of the identity model (build or `fanlake identity train`,
   * src/models/identity-model/train.ts): the configuration it was trained under, the records it
   * saw, its prior (the chance that two random records are one person) and the pairs it was
   * estimated from, and what each EM session did.
   */
  identity_models: `
    model_version integer not null,
    trained_at timestamptz not null,
    definition_hash varchar not null,
    records bigint not null,
    prior double not null,
    prior_pairs bigint not null,
    u_sample_pairs bigint not null,
    sessions json not null,
    definition json,
    records_signature varchar,
    statistics_people bigint,
    statistics_frozen_at timestamptz`,
  /** One row per comparison level of each trained identity model: m, u and the evidence behind them. */
  identity_model_levels: `
    model_version integer not null,
    comparison varchar not null,
    level_index integer not null,
    level varchar not null,
    m double,
    u double,
    u_pairs bigint not null,
    m_sessions integer not null`,
  /**
   * What each identity model version scores names by: the share of people carrying each word
   * two or more people carry (intermediate.int_identity_term_frequencies), as the records held
   * them when the version was first predicted with; a word not listed weighs as one person's
   * (`identity_models.statistics_people`). Kept with the version so a pair scores alike in every
   * build until the next version, and an incremental build equals a full one; a name only one
   * person carries is not kept (src/models/identity-model/frozen-statistics.ts).
   */
  identity_model_term_frequencies: `
    model_version integer not null,
    word varchar not null,
    people bigint not null,
    term_frequency double not null`,
  /**
   * The block values each identity model version compares nobody in (macros.identity_block_keys):
   * those on more records than their blocking rule's cap when the version was put in force, so
   * a record's candidate pairs depend on its own values, not on how full a block has grown since.
   */
  identity_model_crowded_blocks: `
    model_version integer not null,
    block_value ubigint not null`,
  /**
   * One row each time an identity model version was put in force (src/models/identity-model/in-force.ts):
   * the newest row's version is the one `build` predicts with. `applied_by`: `first build`,
   * `identity train --apply`, `autoRetrain` or `adopted` (a warehouse of an older fanlake).
   */
  identity_model_in_force: `
    model_version integer not null,
    applied_at timestamptz not null,
    applied_by varchar not null,
    reason varchar not null`,
  /**
   * One row per build that built the fans (int_identity_clusters): how many fans and records
   * there were before and after it, records present on both sides whose fan_id moved, fans
   * merged (one after holds records of several before) and split (the records of one before
   * went to several), and why a retrain is due under the model in force (NULL: none is).
   * `warn_share`: the setting identityChurnWarnShare at that build, which the data test
   * identity_fan_churn compares `moved_share` with.
   */
  identity_fan_churn: `
    build_id varchar not null,
    built_at timestamptz not null,
    model_version integer not null,
    model_applied boolean not null,
    fans_before bigint not null,
    fans_after bigint not null,
    records_before bigint not null,
    records_after bigint not null,
    records_moved bigint not null,
    fans_merged bigint not null,
    fans_split bigint not null,
    moved_share double not null,
    warn_share double not null,
    retrain_due varchar`,
} as const;

export type MetaTable = keyof typeof META_TABLES;

/** `meta.<table>`, for the report engine's list of readable relations. */
export const META_RELATIONS: readonly string[] = Object.keys(META_TABLES).map((table) => `${META_SCHEMA}.${table}`);

/** Creates schema `meta` and its tables when missing; call it inside the writer's transaction. */
export async function ensureMetaSchema(connection: DuckDBConnection): Promise<void> {
  await connection.run(`create schema if not exists ${META_SCHEMA}`);
  for (const [table, columns] of Object.entries(META_TABLES)) {
    await connection.run(`create table if not exists ${META_SCHEMA}.${table} (${columns}\n)`);
  }
  // Warehouses created before a column was declared get it here, at the end as in a new table.
  for (const { table, column } of ADDED_COLUMNS) await connection.run(`alter table ${META_SCHEMA}.${table} add column if not exists ${column}`);
}

/** Columns declared after warehouses existed; each is the last line of its table above. */
const ADDED_COLUMNS: readonly { table: MetaTable; column: string }[] = [
  { table: 'extraction_runs', column: `errors json default '[]'` },
  { table: 'check_results', column: 'carried_from varchar' },
  { table: 'identity_models', column: 'definition json' },
  { table: 'identity_models', column: 'records_signature varchar' },
  { table: 'identity_models', column: 'statistics_people bigint' },
  { table: 'identity_models', column: 'statistics_frozen_at timestamptz' },
];
