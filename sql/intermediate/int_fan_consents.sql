-- materialized: table
-- description: One row per fan, consent purpose and channel: the latest decision from either system (a ticketing permission answer, an engagement consent given or revoked: the present state of each record in int_consent_events). seeds.consent_channels maps both systems' consents to channel and purpose (ticketing Partner offers to partner e-mail and SMS both); a purpose without a channel (Profiling) has channel null. A consent given under an engagement consent text the club has disabled is no grant and left out; its revocation still counts.
-- test: unique(fan_id, purpose, channel)
-- test: not_null(fan_id, purpose, is_granted)
-- test: accepted_values(source_system: ticketing, engagement)

with

-- the event standing for each record's present state: its latest decision
consent_events as (

    select * from intermediate.int_consent_events
    where is_current_state

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

    from consent_events
    group by fan_id, purpose, channel

)

select * from final
