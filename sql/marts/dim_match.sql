-- description: One row per match (id_event), from the match fields every ticket repeats; the most recently updated ticket wins.
-- test: unique(match_id)
-- test: not_null(match_id, kickoff_at)

with

tickets as (

    select * from staging.stg_ticketing__tickets

),

-- Per match, the most recently updated ticket (ties: the highest ticket id), found by id so
-- only the columns named here are read of a million tickets, not every column through a window.
match_latest as (

    select
        match_id,
        arg_max(ticket_id, (coalesce(updated_at, '-infinity'::timestamptz), ticket_id)) as ticket_id,
        -- An old ticket keeps the match_finished it was sent with; any newer one saying finished wins.
        bool_or(is_match_finished) as any_ticket_says_finished,

    from tickets
    group by match_id

),

-- The latest tickets typed alone: the staging view converts every ticket's fields before a
-- join keeps the few hundred read here (0.2-0.3 s of a scale-10 quiet build)
latest_source as (

    select * from raw.ticketing_tickets
    where id in (select ticket_id from match_latest)

),

latest_tickets as (

    select * from macros.ticketing_tickets_typed('latest_source')

),

final as (

    select
        tickets.match_id,
        tickets.season,
        tickets.league_name,
        tickets.stadium_name,
        tickets.home_team_id,
        tickets.home_team_name,
        tickets.away_team_id,
        tickets.away_team_name,
        tickets.match_date,
        tickets.kickoff_at,
        tickets.sales_start_at,
        tickets.sales_close_at,
        coalesce(match_latest.any_ticket_says_finished, false) as is_finished,
        coalesce(tickets.is_season_ticket_sale, false) as is_season_ticket_sale,
        tickets.event_type,

    from match_latest
    inner join latest_tickets as tickets
        on tickets.ticket_id = match_latest.ticket_id

)

select * from final
