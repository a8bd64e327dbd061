-- materialized: view
-- description: One row per consent decision event of a fan, purpose and channel, from either system: a ticketing permission answer (the API keeps only the latest answer per user and consent, dated by its last update), an engagement consent given (at its creation) and, when revoked, its revocation (at revokedDateTime, else its creation). is_current_state marks the event that stands for the record's present state (the ticketing answer; the engagement revocation, or the grant of a consent not revoked). int_club_consent_meanings maps each consent, by id and name or text, to purpose and channel (channel null for a purpose without one; purpose and channel null for a consent the mapping does not know, mapping_state unmapped or contradicting); a consent given under a consent text the club has disabled is no grant and left out, its revocation still counts. A view over each system's events (int_ticketing_consent_events, int_engagement_consent_events), so a load of one system computes only its own.
-- test: not_null(fan_id, record_id, mapping_state, is_granted, is_current_state, source_system)
-- test: accepted_values(source_system: ticketing, engagement)

with

ticketing_events as (

    select * from intermediate.int_ticketing_consent_events

),

engagement_events as (

    select * from intermediate.int_engagement_consent_events

),

final as (

    select * from ticketing_events
    union all
    select * from engagement_events

)

select * from final
