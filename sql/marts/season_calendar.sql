-- materialized: table
-- as_of: build
-- description: One row per ticket season in the order seasons are played (int_seasons): its first match, the next season's (its end; none for the latest), the seasons before and after it, and season_day_to_date: the days from its first match to the build, or to its end once it is over, so a season to date compares with the season before to the same day (marts.revenue_by_season_day).
-- test: unique(season)
-- test: not_null(season, season_number, starts_at, season_day_to_date)

with

seasons as (

    select * from intermediate.int_seasons

),

final as (

    select
        season,
        season_number,
        starts_at,
        ends_at,
        previous_season,
        next_season,
        date_diff('day', starts_at, least(coalesce(ends_at, now()), now())) as season_day_to_date,

    from seasons

)

select * from final
