-- materialized: incremental
-- unique_key: fan_id, consent_key
-- incremental_delete: fan_id in (select fan_id from intermediate.int_fan_changes where changed_at > coalesce(macros.model_built_at('intermediate.int_fan_consents'), '-infinity')) or fan_id in (select fan_id from intermediate.int_fan_consents anti join intermediate.int_fan_contacts using (fan_id))
-- full_rebuild_on: intermediate.int_club_consent_meanings
-- description: One row per fan, consent purpose and channel: the latest decision from either system (a ticketing permission answer, an engagement consent given or revoked: the present state of each record in int_consent_events, read from its two tables), for consents the club's mapping knows (int_club_consent_meanings: ticketing Partner offers covers partner e-mail and SMS by default; a purpose without a channel, profiling, has channel null). A consent given under an engagement consent text the club has disabled is no grant and left out; its revocation still counts. The safe reading of what the mapping does not know: a refusal or revocation of an unmapped or contradicting consent may have withdrawn anything, so until the club maps it the fan is not granted on any purpose and channel the mapping knows (is_blocked_by_unmapped, with the consents that block in blocking_consents); an unmapped grant grants nothing. consent_key is purpose and channel in one, never null (the merge's key). Incremental: a fan's rows depend on its events alone, so a build computes the fans int_fan_changes stamped since its last build, the same fans whose events int_ticketing_consent_events and int_engagement_consent_events computed again, and deletes theirs and those of fans gone; a changed mapping builds it in full.
-- test: unique(fan_id, purpose, channel)
-- test: not_null(fan_id, consent_key, purpose, is_granted, is_blocked_by_unmapped)
-- test: accepted_values(source_system: ticketing, engagement, unmapped)

with

-- The fans changed since this model's last build; every fan in its first build and
-- --full-refresh (which drop the condition that reads this table).
changed_fans as (

    select fan_id from intermediate.int_fan_changes
    where changed_at > coalesce(macros.model_built_at('intermediate.int_fan_consents'), '-infinity')
        or not exists (select 1 from intermediate.int_fan_consents)

),

-- The event standing for each record's present state: its latest decision. Read from each
-- system's table, not through the int_consent_events view, so that either one built in full
-- (a changed consent text) builds this model in full too. The changed fans as a list
-- unnested: DuckDB hashes them, not the 900k events (as a semi join it hashed the events).
consent_events as (

    select * from intermediate.int_ticketing_consent_events
    where is_current_state
        and fan_id in (select unnest(list(fan_id)) from changed_fans)

    union all

    select * from intermediate.int_engagement_consent_events
    where is_current_state
        and fan_id in (select unnest(list(fan_id)) from changed_fans)

),

meanings as (

    select * from intermediate.int_club_consent_meanings

),

decisions as (

    select
        fan_id,
        purpose,
        channel,
        -- the latest decision wins; on a tie a withdrawal wins over a grant
        arg_max(is_granted, (decided_at, not is_granted)) as is_granted,
        arg_max(source_system, (decided_at, not is_granted)) as source_system,
        max(decided_at) as decided_at,
        count(*) as decision_count,

    from consent_events
    where mapping_state = 'mapped'
    group by fan_id, purpose, channel

),

-- fans whose refusal or revocation the mapping cannot read
blocking_fans as (

    select
        fan_id,
        -- in a set order: two builds of the same consents write the same text
        string_agg(
            distinct source_system || ' ' || cast(consent_id as varchar) || ' ' || coalesce(consent_name, '(text not loaded)'), '; '
            order by source_system || ' ' || cast(consent_id as varchar) || ' ' || coalesce(consent_name, '(text not loaded)')
        ) as blocking_consents,

    from consent_events
    where mapping_state <> 'mapped'
        and not is_granted
    group by fan_id

),

purposes as (

    select distinct
        purpose,
        channel,

    from meanings

),

blocked as (

    select
        blocking_fans.fan_id,
        purposes.purpose,
        purposes.channel,
        blocking_fans.blocking_consents,

    from blocking_fans
    cross join purposes

),

final as (

    select
        coalesce(decisions.fan_id, blocked.fan_id) as fan_id,
        coalesce(decisions.purpose, blocked.purpose) as purpose,
        coalesce(decisions.channel, blocked.channel) as channel,
        coalesce(decisions.is_granted and blocked.fan_id is null, false) as is_granted,
        coalesce(decisions.source_system, 'unmapped') as source_system,
        decisions.decided_at,
        coalesce(decisions.decision_count, 0) as decision_count,
        blocked.fan_id is not null as is_blocked_by_unmapped,
        blocked.blocking_consents,
        coalesce(decisions.purpose, blocked.purpose) || '|' || coalesce(decisions.channel, blocked.channel, '-') as consent_key,

    from decisions
    full outer join blocked
        on blocked.fan_id = decisions.fan_id
        and blocked.purpose = decisions.purpose
        and blocked.channel is not distinct from decisions.channel

)

select * from final
