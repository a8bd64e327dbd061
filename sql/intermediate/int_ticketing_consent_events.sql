-- materialized: table
-- description: One row per ticketing permission answer of a fan, purpose and channel (the API keeps only the latest answer per user and consent, dated by its last update); the ticketing half of int_consent_events, kept apart so that a load of one system computes only its own events.
-- test: not_null(fan_id, purpose, is_granted, is_current_state, source_system)

with

clusters as (

    select * from intermediate.int_identity_clusters

),

user_permissions as (

    select * from staging.stg_ticketing__user_permissions

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
        true as is_current_state,

    from user_permissions
    inner join consent_channels
        on consent_channels.system = 'ticketing'
        and consent_channels.consent_id = user_permissions.consent_type_id
    inner join clusters
        on clusters.system = 'ticketing_user'
        and clusters.record_id = cast(user_permissions.user_id as varchar)
    where user_permissions.has_consented is not null

)

select * from ticketing_decisions
