-- description: One row per match (id_event), from the match fields every ticket repeats; the most recently updated ticket wins.
-- test: unique(match_id)
-- test: not_null(match_id, kickoff_at)

with

tickets as (

    select * from staging.stg_ticketing__tickets

),

latest_ticket_per_match as (

    select
        *,
        row_number() over (
            partition by match_id
            order by updated_at desc nulls last, ticket_id desc
        ) as recency_rank,
        -- An old ticket keeps the match_finished it was sent with; any newer one saying finished wins.
        bool_or(is_match_finished) over (partition by match_id) as any_ticket_says_finished,

    from tickets

),

final as (

    select
        match_id,
        season,
        league_name,
        stadium_name,
        home_team_id,
        home_team_name,
        away_team_id,
        away_team_name,
        match_date,
        kickoff_at,
        sales_start_at,
        sales_close_at,
        coalesce(any_ticket_says_finished, false) as is_finished,
        coalesce(is_season_ticket_sale, false) as is_season_ticket_sale,
        event_type,

    from latest_ticket_per_match
    where recency_rank = 1

)

select * from final
