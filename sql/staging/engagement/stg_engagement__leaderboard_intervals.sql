-- materialized: view
-- description: One row per interval of a leaderboard season (its monthly or other boards), unnested from the season's intervalGroupings.
-- test: unique(interval_id)
-- test: not_null(interval_id, season_id)

with

seasons as (

    select * from raw.engagement_leaderboard_seasons

),

groupings as (

    select
        cast(seasons.id as bigint) as season_id,
        unnest(from_json(
            seasons.intervalGroupings,
            '[{"name": "VARCHAR", "intervals": [{"id": "VARCHAR", "name": "VARCHAR", "startDate": "VARCHAR", "endDate": "VARCHAR"}]}]'
        )) as interval_grouping,
        seasons._vanished_at,
        seasons._extracted_at,

    from seasons

),

intervals as (

    select
        season_id,
        interval_grouping.name as grouping_name,
        unnest(interval_grouping.intervals) as season_interval,
        _vanished_at,
        _extracted_at,

    from groupings

),

renamed as (

    select
        try_cast(season_interval.id as bigint) as interval_id,
        season_id,
        grouping_name,
        season_interval.name as interval_name,
        try_cast(season_interval.startDate as timestamptz) as starts_at,
        try_cast(season_interval.endDate as timestamptz) as ends_at,
        -- set when the season vanished from the API
        _vanished_at as vanished_at,
        _extracted_at,

    from intervals

)

select * from renamed
