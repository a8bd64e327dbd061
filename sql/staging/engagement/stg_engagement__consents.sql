-- materialized: view
-- description: One row per consent a customer profile gave in a campaign app; revoked consents stay with is_revoked.
-- test: unique(consent_id)
-- test: not_null(consent_id, customer_profile_id)

with

source as (

    select * from raw.engagement_consents

),

renamed as (

    select
        -- ids
        cast(id as bigint) as consent_id,
        try_cast(customerProfileId as bigint) as customer_profile_id,
        -- the identity (person) through which the consent was given
        try_cast(identityId as bigint) as person_id,
        try_cast(links ->> 'consentText' as bigint) as consent_text_id,
        links ->> 'consentSource' as consent_source_id,
        try_cast(createdById as bigint) as created_by_id,

        -- state
        coalesce(isRevoked, false) as is_revoked,
        try_cast(createdDateTime as timestamptz) as created_at,
        try_cast(revokedDateTime as timestamptz) as revoked_at,
        -- set when a complete snapshot no longer had the record (removed upstream)
        _vanished_at as vanished_at,
        _extracted_at,

    from source

)

select * from renamed
