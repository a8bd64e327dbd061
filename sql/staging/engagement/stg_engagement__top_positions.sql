-- materialized: view
-- description: One row per customer profile on a leaderboard; the board is the season's general board (interval_id and demographic_value null), an interval board or a demographic board.
-- personal: participant_name (name)
-- test: unique(season_id, interval_id, demographic_value, customer_profile_id)
-- test: not_null(season_id, customer_profile_id)

with

source as (

    select * from raw.engagement_top_positions

),

renamed as (

    select
        -- the board
        cast(season_id as bigint) as season_id,
        try_cast(interval_id as bigint) as interval_id,
        demographic_value,
        interval_id is null and demographic_value is null as is_general_board,

        -- the entry
        try_cast(customerProfileId as bigint) as customer_profile_id,
        participantName as participant_name,
        score,
        position,
        previousPosition as previous_position,
        -- set when a complete snapshot no longer had the record (removed upstream)
        _vanished_at as vanished_at,
        _extracted_at,

    from source

)

select * from renamed
