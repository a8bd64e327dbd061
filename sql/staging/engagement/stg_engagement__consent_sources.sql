-- materialized: view
-- description: One row per consent source (today always a campaign app participation), id "<sourceId>_<sourceType>".
-- test: unique(consent_source_id)
-- test: not_null(consent_source_id)

with

source as (

    select * from raw.engagement_consent_sources

),

renamed as (

    select
        -- ids
        id as consent_source_id,
        sourceId as source_id,
        sourceType as source_type,
        try_cast(campaignAppId as bigint) as campaign_app_id,
        guid,

        -- the campaign it stands for
        type as campaign_type,
        title,
        subtype,
        visualType as visual_type,
        url,
        shortUrl as short_url,
        try_cast(fromDateTime as timestamptz) as starts_at,
        try_cast(toDateTime as timestamptz) as ends_at,
        tenantid as tenant_id,
        -- set when a complete snapshot no longer had the record (removed upstream)
        _vanished_at as vanished_at,
        _extracted_at,

    from source

)

select * from renamed
