-- materialized: view
-- description: One row per campaign participant, as entered in the campaign form (not linked to a customer profile by the API).
-- personal: first_name (name), last_name (name), email (email)
-- test: unique(participant_id)
-- test: not_null(participant_id)
-- test[warn]: relationships(campaign_app_id -> staging.stg_engagement__campaign_apps.campaign_app_id)

with

source as (

    select * from raw.engagement_participants

),

renamed as (

    select
        cast(id as bigint) as participant_id,
        try_cast(campaignAppId as bigint) as campaign_app_id,
        nullif(trim(firstName), '') as first_name,
        nullif(trim(lastName), '') as last_name,
        macros.email_normalized(emailAddress) as email,
        -- set when a complete snapshot no longer had the record (removed upstream)
        _vanished_at as vanished_at,
        _extracted_at,

    from source

)

select * from renamed
