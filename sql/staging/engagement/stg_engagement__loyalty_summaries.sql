-- materialized: view
-- description: One row per customer profile whose loyalty summary was read (the opt-in fan-out FANLAKE_ENGAGEMENT_LOYALTY=true; without it raw.engagement_loyalty_summaries does not exist and this model and its children do not build): point balance, current rank and earned distinctions.
-- test: unique(customer_profile_id)
-- test: not_null(customer_profile_id, loyalty_balance)

with

source as (

    select * from raw.engagement_loyalty_summaries

),

renamed as (

    select
        -- the profile the extractor asked for (by its e-mail, else its phone)
        try_cast(customerProfileId as bigint) as customer_profile_id,

        -- points
        balance as loyalty_balance,

        -- the current rank; a threshold of 0.01 means the top 1 % of individuals
        try_cast(rank ->> 'id' as bigint) as loyalty_rank_id,
        rank ->> 'name' as loyalty_rank_name,
        try_cast(rank ->> 'threshold' as double) as loyalty_rank_threshold,
        coalesce(json_array_length(ranks), 0) as loyalty_rank_count,

        -- distinctions: the API lists all of them, each with an earned flag
        coalesce(json_array_length(distinctions), 0) as distinction_count,
        coalesce(len(list_filter(
            from_json(distinctions, '[{"isEarned": "BOOLEAN"}]'),
            distinction -> distinction.isEarned
        )), 0) as distinctions_earned,
        distinctions,
        -- set when a complete snapshot no longer had the record (removed upstream)
        _vanished_at as vanished_at,
        _extracted_at,

    from source

)

select * from renamed
