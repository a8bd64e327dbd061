-- materialized: table
-- description: One row per engagement consent decision of a fan, purpose and channel: a consent given (at its creation) and, when revoked, its revocation (at revokedDateTime, else its creation); a consent given under a consent text the club has disabled is no grant and left out, its revocation still counts. The engagement half of int_consent_events, kept apart so that a load of one system computes only its own events.
-- test: not_null(fan_id, purpose, is_granted, is_current_state, source_system)

with

clusters as (

    select * from intermediate.int_identity_clusters

),

consents as (

    select * from staging.stg_engagement__consents
    where vanished_at is null

),

consent_texts as (

    select * from staging.stg_engagement__consent_texts

),

consent_channels as (

    select * from seeds.consent_channels

),

engagement_consents as (

    select
        clusters.fan_id,
        consent_channels.purpose,
        consent_channels.channel,
        consents.is_revoked,
        consents.created_at,
        coalesce(consents.revoked_at, consents.created_at) as revoked_at,
        -- the club no longer stands behind a disabled text, so agreeing to it grants nothing
        consent_texts.is_enabled is distinct from false as is_text_enabled,

    from consents
    inner join consent_channels
        on consent_channels.system = 'engagement'
        and consent_channels.consent_id = consents.consent_text_id
    inner join clusters
        on clusters.system = 'engagement_customer_profile'
        and clusters.record_id = cast(consents.customer_profile_id as varchar)
    left join consent_texts
        on consent_texts.consent_text_id = consents.consent_text_id

),

-- A consent is a grant when given and a withdrawal when revoked; both are decisions.
engagement_grants as (

    select
        fan_id,
        purpose,
        channel,
        true as is_granted,
        created_at as decided_at,
        'engagement' as source_system,
        not is_revoked as is_current_state,

    from engagement_consents
    where is_text_enabled

),

engagement_revocations as (

    select
        fan_id,
        purpose,
        channel,
        false as is_granted,
        revoked_at as decided_at,
        'engagement' as source_system,
        true as is_current_state,

    from engagement_consents
    where is_revoked

),

final as (

    select * from engagement_grants
    union all
    select * from engagement_revocations

)

select * from final
