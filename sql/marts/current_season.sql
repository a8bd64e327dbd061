-- materialized: view
-- description: One row: the current ticket season, the season of the latest match that has kicked off (the newest season when none has yet). A view, so "now" is when it is read: the reports' default season.
-- test: not_null(season)

with

matches as (

    select * from marts.dim_match

),

final as (

    select
        coalesce(
            max(season) filter (where kickoff_at <= now()),
            max(season)
        ) as season,

    from matches
    where not is_season_ticket_sale

)

select * from final
