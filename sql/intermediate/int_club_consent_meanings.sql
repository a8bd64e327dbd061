-- materialized: view
-- description: What each consent means to the club (the club's consent_meanings.csv, or the default: macros.club_consent_meanings()): one row per consent and channel it covers, keyed on the consent as each API identifies it, its id AND its name (ticketing id_consent_basic and the permission's name) or text (engagement consent text id and text). A consent whose id is known but whose name differs is a contradiction, never a silent reuse. channel is null for a purpose without one (profiling).
-- test: unique(system, consent_id, consent_name, purpose, channel)
-- test: not_null(system, consent_id, consent_name, purpose)
-- test: accepted_values(system: ticketing, engagement)
-- test: accepted_values(channel: email, sms, push)

with

meanings as (

    select * from macros.club_consent_meanings()

),

final as (

    select
        lower(trim(cast(system as varchar))) as system,
        cast(consent_id as bigint) as consent_id,
        cast(consent_name as varchar) as consent_name,
        lower(trim(cast(purpose as varchar))) as purpose,
        nullif(lower(trim(cast(channel as varchar))), '') as channel,
        coalesce(nullif(trim(cast(display_name as varchar)), ''), cast(consent_name as varchar)) as display_name,

    from meanings

)

select * from final
