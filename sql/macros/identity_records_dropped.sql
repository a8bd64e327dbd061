-- description: The record keys a table holding one row per record of int_identity_records as of its own last build (named by kept_table: int_identity_record_changes, int_identity_clusters) holds that the records (named by records_table) no longer do: their incremental_delete and the rows they compute again read them. Looked for only when some are gone, which the row counts say without comparing every key: the table's rows number the records as of its last build, and a record new since then was computed since (int_identity_records' changed_at), so the records now number the table's rows, less the gone ones, plus the new ones. Comparing all 613k keys of a scale-10 club cost 0.05 s of each of those models in every build, whose records rarely go.
create or replace macro macros.identity_records_dropped(kept_table, records_table) as table
    with

    -- kept rows - (records - new ones) = gone ones; a new one is computed since the table's last
    -- build and not kept (the computed keys as a list unnested: DuckDB then takes them for few and
    -- hashes them, not the 613k kept keys of a scale-10 club). Each table read where counted, not
    -- through CTEs of every key: a stored macro loses a CTE's NOT MATERIALIZED, and DuckDB copied
    -- every kept key and every record's key first (33-147 ms against 5-20 ms, one thread).
    some_gone as (
        select
            (select count(*) from query_table(kept_table))
                - (select count(*) from query_table(records_table))
                + (
                    select count(*) from query_table(records_table)
                    where changed_at > coalesce(macros.model_built_at(kept_table), '-infinity')
                )
                - (
                    select count(*) from query_table(kept_table)
                    where record_key in (
                        select unnest(list(record_key)) from query_table(records_table)
                        where changed_at > coalesce(macros.model_built_at(kept_table), '-infinity')
                    )
                )
                > 0 as is_gone
    )

    select record_key from query_table(kept_table)
    where (select is_gone from some_gone)
        and record_key not in (
            select record_key from query_table(records_table)
            where (select is_gone from some_gone)
        );
