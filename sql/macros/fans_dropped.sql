-- description: The fans a table holding one row per fan of int_fan_contacts as of its own last build (named by kept_table: int_fan_changes, int_fan_purchases, dim_fan) holds that int_fan_contacts no longer does: its incremental_delete reads them. Looked for only when some are gone, which the row counts say without comparing every fan: a fan new since the table's last build was computed since (int_fan_contacts' changed_at), so the fans now number the table's rows, less the gone ones, plus the new ones (as macros.identity_records_dropped counts records). Comparing all 257k fans of a scale-10 club cost 0.03-0.05 s of each of those models in every quiet build, which rarely loses a fan.
create or replace macro macros.fans_dropped(kept_table) as table
    with

    -- kept rows - (fans - new ones) = gone ones; a new one is computed since the table's last
    -- build and not kept (the computed fans as a list unnested: DuckDB then takes them for few
    -- and hashes them, not the kept 257k). Each table read where counted, not through CTEs of
    -- every fan, as macros.identity_records_dropped does: a stored macro loses a CTE's NOT
    -- MATERIALIZED, and DuckDB would copy every kept fan and every fan first.
    some_gone as (
        select
            (select count(*) from query_table(kept_table))
                - (select count(*) from intermediate.int_fan_contacts)
                + (
                    select count(*) from intermediate.int_fan_contacts
                    where changed_at > coalesce(macros.model_built_at(kept_table), '-infinity')
                )
                - (
                    select count(*) from query_table(kept_table)
                    where fan_id in (
                        select unnest(list(fan_id)) from intermediate.int_fan_contacts
                        where changed_at > coalesce(macros.model_built_at(kept_table), '-infinity')
                    )
                )
                > 0 as is_gone
    )

    select fan_id from query_table(kept_table)
    where (select is_gone from some_gone)
        and fan_id not in (
            select fan_id from intermediate.int_fan_contacts
            where (select is_gone from some_gone)
        );
