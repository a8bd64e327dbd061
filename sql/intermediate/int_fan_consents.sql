-- materialized: table
-- description: One row per fan, consent purpose and channel: the latest decision from either system (a ticketing permission answer, an engagement consent given or revoked). seeds.consent_channels maps both systems' consents to channel and purpose (ticketing Partner offers to partner e-mail and SMS both); a purpose without a channel (Profiling) has channel null. A consent given under an engagement consent text the club has disabled is no grant and left out; its revocation still counts.
-- test: unique(fan_id, purpose, channel)
-- test: not_null(fan_id, purpose, is_granted)
-- test: accepted_values(source_system: ticketing, engagement)

with

clusters as (

    select * from intermediate.int_identity_clusters

),

user_permissions as (

    select * from staging.stg_ticketing__user_permissions

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

ticketing_decisions as (

    select
        clusters.fan_id,
        consent_channels.purpose,
        consent_channels.channel,
        user_permissions.has_consented as is_granted,
        user_permissions.updated_at as decided_at,
        'ticketing' as source_system,

    from user_permissions
    inner join consent_channels
        on consent_channels.system = 'ticketing'
        and consent_channels.consent_id = user_permissions.consent_type_id
    inner join clusters
        on clusters.system = 'ticketing_user'
        and clusters.record_id = cast(user_permissions.user_id as varchar)
    where user_permissions.has_consented is not null

),

-- A consent is a grant when given and a withdrawal when revoked; both are decisions.
engagement_decisions as (

    select
        clusters.fan_id,
        consent_channels.purpose,
        consent_channels.channel,
        not consents.is_revoked as is_granted,
        case when consents.is_revoked then coalesce(consents.revoked_at, consents.created_at) else consents.created_at end as decided_at,
        'engagement' as source_system,

    from consents
    inner join consent_channels
        on consent_channels.system = 'engagement'
        and consent_channels.consent_id = consents.consent_text_id
    inner join clusters
        on clusters.system = 'engagement_customer_profile'
        and clusters.record_id = cast(consents.customer_profile_id as varchar)
    left join consent_texts
        on consent_texts.consent_text_id = consents.consent_text_id
    -- the club no longer stands behind a disabled text, so agreeing to it grants nothing
    where consents.is_revoked or consent_texts.is_enabled is distinct from false

),

decisions as (

    select * from ticketing_decisions
    union all
    select * from engagement_decisions

),

final as (

    select
        fan_id,
        purpose,
        channel,
        -- the latest decision wins; on a tie a withdrawal wins over a grant
        arg_max(is_granted, (decided_at, not is_granted)) as is_granted,
        arg_max(source_system, (decided_at, not is_granted)) as source_system,
        max(decided_at) as decided_at,
        count(*) as decision_count,

    from decisions
    group by fan_id, purpose, channel

)

select * from final
