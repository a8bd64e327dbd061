-- materialized: table
-- description: Books of consents: one row per system with every consent record loaded (ticketing user permissions, engagement consents) and what became of it, each record counted once: mapped (a decision the consent figures read), unmapped or contradicting (a consent the club's mapping does not know, or knows under another name or text: no grant, and a refusal blocks the fan, int_fan_consents), disabled_text (an engagement consent given under a text the club has disabled and not revoked: no grant), vanished (removed upstream), no_decision (a ticketing answer without one), unknown_fan (a record of a user or profile not loaded). tests/books_consents fails when they do not add up to loaded.
-- test: unique(system)
-- test: not_null(system, loaded, mapped, unmapped, contradicting, disabled_text, vanished, no_decision, unknown_fan)

with

raw_permissions as (

    select * from raw.ticketing_user_permissions

),

raw_consents as (

    select * from raw.engagement_consents

),

user_permissions as (

    select * from staging.stg_ticketing__user_permissions

),

consents as (

    select * from staging.stg_engagement__consents

),

consent_texts as (

    select * from staging.stg_engagement__consent_texts

),

clusters as not materialized (

    select * from intermediate.int_identity_clusters

),

-- each ticketing account's fan, by the account's id: a join on the number, not on its text
ticketing_users as (

    select * from intermediate.int_ticketing_user_fans

),

consent_events as (

    select * from intermediate.int_consent_events

),

-- each record's mapping state, once however many channels or decisions it has: one distinct
-- count by state (three distinct counts, one a state, each hashed every event)
event_record_states as (

    select
        source_system as system,
        mapping_state,
        count(distinct record_id) as records,

    from consent_events
    group by source_system, mapping_state

),

event_records as (

    select
        system,
        coalesce(max(records) filter (where mapping_state = 'mapped'), 0) as mapped,
        coalesce(max(records) filter (where mapping_state = 'unmapped'), 0) as unmapped,
        coalesce(max(records) filter (where mapping_state = 'contradicting'), 0) as contradicting,

    from event_record_states
    group by system

),

ticketing_exclusions as (

    select
        'ticketing' as system,
        count(*) filter (where ticketing_users.fan_id is null) as unknown_fan,
        count(*) filter (where ticketing_users.fan_id is not null and user_permissions.has_consented is null) as no_decision,
        0 as disabled_text,
        0 as vanished,

    from user_permissions
    left join ticketing_users
        on ticketing_users.user_id = user_permissions.user_id

),

engagement_exclusions as (

    select
        'engagement' as system,
        count(*) filter (where consents.vanished_at is null and clusters.fan_id is null) as unknown_fan,
        0 as no_decision,
        count(*) filter (
            where consents.vanished_at is null
                and clusters.fan_id is not null
                and not consents.is_revoked
                and consent_texts.is_enabled is not distinct from false
        ) as disabled_text,
        count(*) filter (where consents.vanished_at is not null) as vanished,

    from consents
    left join clusters
        on clusters.system = 'engagement_customer_profile'
        and clusters.record_id = cast(consents.customer_profile_id as varchar)
    left join consent_texts
        on consent_texts.consent_text_id = consents.consent_text_id

),

exclusions as (

    select * from ticketing_exclusions
    union all
    select * from engagement_exclusions

),

loaded as (

    select 'ticketing' as system, count(*) as loaded from raw_permissions
    union all
    select 'engagement', count(*) from raw_consents

),

final as (

    select
        loaded.system,
        loaded.loaded,
        coalesce(event_records.mapped, 0) as mapped,
        coalesce(event_records.unmapped, 0) as unmapped,
        coalesce(event_records.contradicting, 0) as contradicting,
        exclusions.disabled_text,
        exclusions.vanished,
        exclusions.no_decision,
        exclusions.unknown_fan,

    from loaded
    inner join exclusions
        on exclusions.system = loaded.system
    left join event_records
        on event_records.system = loaded.system

)

select * from final
