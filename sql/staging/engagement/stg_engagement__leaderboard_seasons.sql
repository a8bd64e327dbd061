-- materialized: view
-- description: One row per leaderboard season; its intervals are in stg_engagement__leaderboard_intervals.
-- test: unique(season_id)
-- test: not_null(season_id)

with

source as (

    select * from raw.engagement_leaderboard_seasons

),

renamed as (

    select
        cast(id as bigint) as season_id,
        name as season_name,
        try_cast(startDate as timestamptz) as starts_at,
        try_cast(endDate as timestamptz) as ends_at,
        privateLeaderboardsEnabled as has_private_leaderboards,
        demographicFieldId as demographic_field_id,
        coalesce(json_array_length(intervalGroupings), 0) as interval_grouping_count,
        -- set when a complete snapshot no longer had the record (removed upstream)
        _vanished_at as vanished_at,
        _extracted_at,

    from source

)

select * from renamed
