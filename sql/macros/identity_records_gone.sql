-- description: The record keys a table shaped like int_identity_records (named by records_table) holds that are gone from the identity fields models (named by fields_tables: int_identity_ticketing_fields, int_identity_engagement_fields): its incremental_delete and the rows it computes again read them. Looked for only when some are gone, which the tables' row counts say without comparing every key: the records hold one row per fields row as of their last build, and a fields row new since then was read since then (read_at), so the stored rows number the fields rows, less the new ones, plus the gone ones. Comparing all 613k keys of a scale-10 club cost 0.1 s of every build, whose fields rarely lose a record.
create or replace macro macros.identity_records_gone(records_table, fields_tables) as table
    with

    -- stored rows - (fields rows - new ones) = gone ones; a new one is read since the records'
    -- last build and not stored (the read keys as a list unnested: DuckDB then takes them for few
    -- and hashes them, not the 613k stored keys of a scale-10 club, as it did misjudging the
    -- read_at filter). Each table read where counted, not through CTEs of every key: a stored
    -- macro loses a CTE's NOT MATERIALIZED, and DuckDB copied every fields row's and every
    -- record's key first.
    some_gone as (
        select
            (select count(*) from query_table(records_table))
                - (select count(*) from query_table(fields_tables, true))
                + (
                    select count(*) from query_table(fields_tables, true)
                    where read_at > coalesce(macros.model_built_at(records_table), '-infinity')
                )
                - (
                    select count(*) from query_table(records_table)
                    where record_key in (
                        select unnest(list(system || ':' || record_id)) from query_table(fields_tables, true)
                        where read_at > coalesce(macros.model_built_at(records_table), '-infinity')
                    )
                )
                > 0 as is_gone
    )

    select record_key from query_table(records_table)
    where (select is_gone from some_gone)
        and record_key not in (
            select system || ':' || record_id from query_table(fields_tables, true)
            where (select is_gone from some_gone)
        );
