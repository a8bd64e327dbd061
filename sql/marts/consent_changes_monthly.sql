-- materialized: table
-- description: One row per calendar month (UTC, of the decision), consent purpose and channel (none for a purpose without one) with any decision: consent grants and withdrawals that month from both systems (intermediate.int_consent_events), as decisions and as distinct fans. An engagement consent is a grant when given and, if revoked, a withdrawal when revoked; a ticketing permission is known only by its latest answer, counted in the month of its last update (a "no" counts as a withdrawal). A consent given under a disabled consent text grants nothing. Decisions on a consent the club's mapping does not know (int_consent_events.mapping_state unmapped or contradicting) count under purpose unmapped, channel none, until the club maps it (fanlake doctor lists what is unmapped). purpose_name and channel_name are the club's words for them (display_names.csv).
-- test: unique(month, purpose, channel)
-- test: not_null(month, purpose, channel, grants, withdrawals, granting_fans, withdrawing_fans)
-- test: accepted_values(channel: email, sms, push, none)

with

consent_events as (

    select * from intermediate.int_consent_events
    where decided_at is not null

),

final as (

    select
        macros.utc_month(decided_at) as month,
        coalesce(purpose, 'unmapped') as purpose,
        coalesce(channel, 'none') as channel,
        count(*) filter (where is_granted) as grants,
        count(*) filter (where not is_granted) as withdrawals,
        count(distinct fan_id) filter (where is_granted) as granting_fans,
        count(distinct fan_id) filter (where not is_granted) as withdrawing_fans,
        count(*) filter (where is_granted and source_system = 'ticketing') as grants_ticketing,
        count(*) filter (where is_granted and source_system = 'engagement') as grants_engagement,
        count(*) filter (where not is_granted and source_system = 'ticketing') as withdrawals_ticketing,
        count(*) filter (where not is_granted and source_system = 'engagement') as withdrawals_engagement,

    from consent_events
    group by all

),

display_names as (

    select * from macros.club_display_names()

),

-- the club's words for each purpose and channel, the code where it has none
named as (

    select
        final.*,
        coalesce(purpose_names.display_name, final.purpose) as purpose_name,
        coalesce(channel_names.display_name, final.channel) as channel_name,

    from final
    left join display_names as purpose_names
        on purpose_names.kind = 'purpose'
        and purpose_names.code = final.purpose
    left join display_names as channel_names
        on channel_names.kind = 'channel'
        and channel_names.code = final.channel

)

select * from named

