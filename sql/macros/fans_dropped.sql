-- description: The fans a table holding one row per fan of int_fan_contacts as of its own last build (named by kept_table: int_fan_changes, int_fan_purchases, dim_fan) holds that int_fan_contacts no longer does: its incremental_delete reads them. Looked for only when some are gone, which the row counts say without comparing every fan: a fan new since the table's last build was computed since (int_fan_contacts' changed_at), so the fans now number the table's rows, less the gone ones, plus the new ones (as macros.identity_records_dropped counts records). Comparing all 257k fans of a scale-10 club cost 0.03-0.05 s of each of those models in every quiet build, which rarely loses a fan.
create or replace macro macros.fans_dropped(kept_table) as table
    with

    kept as (
        select fan_id from query_table(kept_table)
    ),

    fans as (
        select fan_id, changed_at from intermediate.int_fan_contacts
    ),

    -- the fans computed since the table's last build: every new fan is among them
    computed as (
        select fan_id from fans
        where changed_at > coalesce(macros.model_built_at(kept_table), '-infinity')
    ),

    -- kept rows - (fans - new ones) = gone ones; a new one is computed and not kept (the computed
    -- fans as a list unnested: DuckDB then takes them for few and hashes them, not the kept 257k)
    some_gone as (
        select
            (select count(*) from kept)
                - (select count(*) from fans)
                + (select count(*) from computed)
                - (select count(*) from kept where fan_id in (select unnest(list(fan_id)) from computed))
                > 0 as is_gone
    )

    select fan_id from kept
    where (select is_gone from some_gone)
        and fan_id not in (
            select fan_id from fans
            where (select is_gone from some_gone)
        );
