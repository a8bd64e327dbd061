/**
 * The models stage: `fanlake build` and `fanlake check`.
 *
 * ## Layout of the models root (`<repo>/sql`)
 * ```text
 * sql/staging/<source>/stg_<source>__<entity>.sql   -> staging.stg_<source>__<entity>   (view by default)
 * sql/intermediate/int_<name>.sql                   -> intermediate.int_<name>         (table by default)
 * sql/marts/<name>.sql                              -> marts.<name>                    (table by default)
 * sql/macros/<name>.sql                             -> macro macros.<name>  (created by every build; see macros.ts)
 * sql/seeds/<name>.csv                              -> seeds.<name>  (read_csv with a header row; reloaded on every build)
 * sql/tests/<name>.sql                              a query returning failing rows (header: -- severity: warn)
 * sql/sources.json                                  tests and freshness of raw.* tables (see checks/sources-file.ts)
 * ```
 * One model per file, file name = table name (lowercase, digits, `_`; unique across layers),
 * folder = schema. Names starting with `_` or `.` are ignored.
 *
 * ## A model
 * A single SELECT (CTEs welcome) that reads sources, seeds and other models by schema-qualified
 * name (`raw.ticketing_tickets`, `seeds.country_codes`, `staging.stg_ticketing__tickets`), so it
 * pastes into a DuckDB shell unchanged. The graph comes from DuckDB's own parser
 * (`json_serialize_sql`): every table in the parse tree that is not a CTE is a parent.
 * Unqualified table names, unknown models and schemas other than raw/seeds/staging/
 * intermediate/marts are problems reported before anything runs, as are cycles.
 * Table functions (`read_parquet(...)`) are not tracked. Shared rules are DuckDB macros called
 * as `macros.<name>(...)`: the same parse tree shows which a model calls, and a changed macro
 * (or the setting it is made from) changes the fingerprint of every model that calls it.
 *
 * The header (leading `--` lines) sets how it is written; see model-header.ts:
 * ```sql
 * -- materialized: incremental
 * -- unique_key: ticket_id
 * -- description: One row per ticket, latest version.
 * -- test: unique(ticket_id)
 * -- test: relationships(fan_id -> marts.dim_fan.fan_id)
 * -- test[warn]: accepted_values(status: paid, refunded)
 * ```
 *
 * ## Incremental models
 * The first build (or `--full-refresh`) creates the table from the whole SELECT; later builds
 * compute the SELECT into a temp table and merge it by `unique_key` (a row of a new key, or one
 * whose values changed, replaces what its key held; identical rows are left alone). The merge
 * deletes and inserts rather than updates: DuckDB's checkpoint stores again every column segment
 * an update touched, so a few updates spread over a large table cost a checkpoint of the whole
 * table (see materialize.ts). To make a build cost proportional to new data the model may read
 * ITS OWN table in an AND-ed WHERE condition, for a high-water mark:
 * ```sql
 * where _extracted_at > (select coalesce(max(_extracted_at), '-infinity') from marts.fct_tickets)
 * ```
 * That self-reference is not a dependency. On the first build the table does not exist, so the
 * runner drops exactly those conditions from DuckDB's parse tree and rebuilds the SQL with
 * `json_deserialize_sql` — the same idea as dbt's `is_incremental()`, without a template
 * language. A self-reference anywhere else (FROM, SELECT list) is a problem.
 * A build keeps each model's definition (its SQL and header, the macros it calls, the content
 * of the seeds it reads); an incremental model whose definition changed since its last build
 * is built in full, as its first build, so rows of new logic never merge onto rows of the old
 * (an upgrade of fanlake needs no `--full-refresh` to remember). A parent whose columns changed
 * under an unchanged definition (`select *` of a changed view) still fails the merge with a
 * request for `--full-refresh`.
 * A merge never deletes a key it was not given: a model whose rows can lose their source
 * declares the rows to drop before each merge, `-- incremental_delete: record_key not in
 * (select record_key from intermediate.int_identity_records)` (int_identity_clusters does).
 * An increment that follows one input (its facts) misses the rows a lookup it joins changes
 * (a match moved to another season): `-- full_rebuild_on: marts.dim_match` names the lookups
 * whose changed content builds the model in full, as a changed definition does (their content
 * is part of its definition; int_ticket_kinds, int_revenue_lines).
 * Where no timestamp says what changed (a parent rebuilt in full), a model keeps a signature of
 * each row's inputs and compares it in a self-reading WHERE condition, `where not exists
 * (select 1 from <itself> as stored where stored.key = x.key and stored.signature =
 * x.signature)`: the rows whose inputs changed are computed again, and on the first build,
 * the condition dropped, all of them (int_identity_clusters, int_fan_contacts). A condition that narrows the work only on later builds may say so with
 * `or not exists (select 1 from <itself>)`, which the first build drops with it.
 *
 * ## Tables written as a difference
 * A `table` may name a `unique_key` too. Every build still computes all its rows, as for any
 * table, but writes only the difference: it inserts rows of new keys, replaces changed rows and
 * deletes the rows whose key is gone, so the table ends as a rebuild would leave it. Writing a
 * large table costs more than comparing it with the new rows, and the merge tells the children
 * whether anything changed without summing the rows. A null in the key meets null. New rows that repeat a key
 * (bad raw data, which the model's data tests report), other columns or column types (a
 * parent's `select *` changed) write the table in full, and then its rows are summed as any
 * table's are; its first build and `--full-refresh` write it in full too, and count as a change,
 * as an incremental model's do.
 * Whenever such a table, or an incremental model, is written in full, its rows are written in
 * key order: unsorted, DuckDB's parallel write left part-filled row groups that the next
 * checkpoint merged, at the cost of writing the table again (materialize.ts).
 *
 * ## Lineage columns
 * A model with a `unique_key` may name columns that say where a row came from rather than what
 * it holds, `-- lineage_columns: _extracted_at` (fct_tickets does: its high-water mark). A row
 * that differs from the stored one only in them is written like any other, so the table is what
 * a rebuild makes, but the merge does not count it as a change, so the model's children stay
 * as they are. A load reads a ticketing lookback window again every run, and each re-read
 * ticket takes the run's `_extracted_at` in raw; without this, every such load rebuilt every
 * model after `fct_tickets` although no ticket changed.
 *
 * ## What a build rebuilds
 * A model is left as it is (`unchanged`) when its fingerprint equals its last build's: its SQL
 * and header, the macros it calls, the state of the raw tables it reads (row count, newest
 * `_extracted_at`) and what each parent holds (build-state.ts). What a parent holds is, for a
 * table that others read, a signature of its rows (count and sum of row hashes, one scan after
 * it is written; an incremental model or a table with a `unique_key` needs no scan: its merge
 * says whether any row changed, and a build in full counts as a change), and for views and
 * seeds their own fingerprint. So a table rebuilt to the same rows stops the rebuild there: a
 * load that touches only columns identity resolution does not read rebuilds
 * `int_identity_ticketing_fields` (the columns it reads) to the same rows and nothing of identity after
 * it. A parent outside a `--select` counts as what it holds now, so the child built from
 * it is rebuilt once the parent is. A warehouse built before signatures were kept rebuilds
 * nothing on upgrade; each table gains its signature at its next build.
 *
 * ## Running
 * Seeds load first, then models in dependency order; a failed model keeps its previous
 * view/table (each write is one DuckDB transaction) and skips its descendants, while
 * independent branches still build. Models build `concurrency` at a time (setting
 * models.buildConcurrency, default 2), each on a connection of its own, each as soon as its
 * parents are built: a quiet build's small models leave a core idle between their statements
 * (docs/decisions.md "Two models at once").
 * A model that left the project (its file removed or renamed) has its table or view dropped
 * by the next build, reported as `dropped`: left in place it would still answer queries with
 * rows no build keeps up to date. Only relations the build state records as built are
 * dropped, never other tables in the model schemas (drop-removed-models.ts); macros whose
 * file is gone are dropped alike.
 * After a build, `<dataDir>/lineage.json` describes every model, its parents and its columns.
 * The parses of macros and models are kept in `<dataDir>/state/model-parses.json` by a hash of
 * their text, so a build parses only what changed since the last (parse-cache.ts).
 */
export { buildModels, loadModelGraph, BUILD_STATUSES, DEFAULT_CHURN_WARN_SHARE } from './build-models.js';
export type { BuildEvent, BuildModelsOptions, BuildStatus, ModelResult } from './build-models.js';
export { checksFailed, runChecks, TEST_STATUSES } from './checks/run-checks.js';
export type { RunChecksOptions, TestResult, TestStatus } from './checks/run-checks.js';
export type { CheckKind } from './checks/plan-tests.js';
export { SOURCES_FILE } from './checks/sources-file.js';
export { SEVERITIES, TEST_KINDS } from './checks/test-declaration.js';
export type { Severity, TestKind } from './checks/test-declaration.js';
export { DEFAULT_MODELS_DIR, discoverProject } from './discover-project.js';
export type { ModelDefinition, ModelProject } from './discover-project.js';
export { LINEAGE_FILE, readLineage } from './lineage.js';
export type { Lineage, LineageColumn, LineageModel, LineageRelation } from './lineage.js';
export { MATERIALIZATIONS, MODEL_SCHEMAS } from './model-header.js';
export type { Materialization, ModelSchema } from './model-header.js';
export { MODEL_ERROR_CODES, ModelProjectError } from './model-errors.js';
export { selectModels } from './select-models.js';
