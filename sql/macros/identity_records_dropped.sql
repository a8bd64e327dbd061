-- description: The record keys a table holding one row per record of int_identity_records as of its own last build (named by kept_table: int_identity_record_changes, int_identity_clusters) holds that the records (named by records_table) no longer do: their incremental_delete and the rows they compute again read them. Looked for only when some are gone, which the row counts say without comparing every key: the table's rows number the records as of its last build, and a record new since then was computed since (int_identity_records' changed_at), so the records now number the table's rows, less the gone ones, plus the new ones. Comparing all 613k keys of a scale-10 club cost 0.05 s of each of those models in every build, whose records rarely go.
create or replace macro macros.identity_records_dropped(kept_table, records_table) as table
    with

    kept as (
        select record_key from query_table(kept_table)
    ),

    records as (
        select record_key, changed_at from query_table(records_table)
    ),

    -- the records computed since the table's last build: every new record is among them
    computed as (
        select record_key from records
        where changed_at > coalesce(macros.model_built_at(kept_table), '-infinity')
    ),

    -- kept rows - (records - new ones) = gone ones; a new one is computed and not kept (the
    -- computed keys as a list unnested: DuckDB then takes them for few and hashes them, not the
    -- 613k kept keys of a scale-10 club)
    some_gone as (
        select
            (select count(*) from kept)
                - (select count(*) from records)
                + (select count(*) from computed)
                - (select count(*) from kept where record_key in (select unnest(list(record_key)) from computed))
                > 0 as is_gone
    )

    select record_key from kept
    where (select is_gone from some_gone)
        and record_key not in (
            select record_key from records
            where (select is_gone from some_gone)
        );
