-- description: Typed ticket rows (stg_ticketing__tickets' columns) from a table shaped like raw.ticketing_tickets, named by source_table. A macro, so a model that needs a few tickets' typed fields (dim_match: the latest ticket of each match) converts those rows alone: DuckDB converts every row of the staging view before a join picks a few.
create or replace macro macros.ticketing_tickets_typed(source_table) as table
    select
        -- ids
        id as ticket_id,
        id_event as match_id,
        id_sale_order as sale_order_id,
        id_transaction as transaction_id,
        id_season_ticket as season_ticket_id,
        external_id,
        user_aquired_id as buyer_user_id,
        user_held_id as holder_user_id,

        -- match, repeated on every ticket
        season,
        league_name,
        name as stadium_name,
        match_team_home_id as home_team_id,
        match_team_home_name as home_team_name,
        match_team_away_id as away_team_id,
        match_team_away_name as away_team_name,
        try_cast(match_date as date) as match_date,
        try_cast(match_time as time) as match_time,
        -- match_date and match_time are UTC (docs/decisions.md).
        try_cast(match_date || 'T' || match_time || 'Z' as timestamptz) as kickoff_at,
        try_cast(match_sales_start as timestamptz) as sales_start_at,
        try_cast(match_sales_close as timestamptz) as sales_close_at,
        match_finished as is_match_finished,
        just_seasonticket_sales as is_season_ticket_sale,
        event_type,

        -- order
        order_type as order_type_id,
        order_type_txt as order_type_text,
        order_channel,
        order_status as order_status_id,
        order_status_text as order_status_name,
        try_cast(order_date as timestamptz) as ordered_at,
        distribution,

        -- amounts, NOK; order_price repeats the whole order's total on each of its tickets
        try_cast(order_price as decimal(12, 2)) as order_price,
        try_cast(ticket_price as decimal(12, 2)) as ticket_price,
        try_cast(ticket_subtotal as decimal(12, 2)) as ticket_subtotal,
        try_cast(ticket_vat as decimal(12, 2)) as ticket_vat,

        -- ticket
        ticket_type as ticket_type_id,
        ticket_type_txt as ticket_type_name,
        ticket_price_category as price_category_id,
        ticket_price_description as price_category_name,
        id_ticket_status as ticket_status_id,
        ticket_status_txt as ticket_status_text,
        coalesce(ticket_redeemed, false) as is_redeemed,
        ticket_was_printed <> 0 as is_printed,
        ticket_section as seat_section,
        ticket_row as seat_row,
        ticket_seat as seat_number,
        -- "Boolean, serialized as a string in samples"
        try_cast(lower(trim(ticket_released)) as boolean) as is_released,
        try_cast(ticket_date_released as timestamptz) as released_at,

        try_cast(last_update as timestamptz) as updated_at,
        _extracted_at,

    from query_table(source_table);
