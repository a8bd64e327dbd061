-- description: One row per ticket season (dim_match.season) in the order seasons are played: by their first kickoff, the season-ticket sale (dated before the season opens) included. A season runs from its first kickoff to the next season's first kickoff; the latest has no end.
-- test: unique(season)
-- test: not_null(season, season_number, starts_at)

with

matches as (

    select * from marts.dim_match

),

seasons as (

    select
        season,
        min(kickoff_at) as starts_at,

    from matches
    where season is not null
    group by season

),

final as (

    select
        season,
        row_number() over (order by starts_at, season) as season_number,
        starts_at,
        lead(starts_at) over (order by starts_at, season) as ends_at,
        lag(season) over (order by starts_at, season) as previous_season,
        lead(season) over (order by starts_at, season) as next_season,

    from seasons

)

select * from final
