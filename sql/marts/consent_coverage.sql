-- materialized: table
-- description: One row per consent purpose and channel (email, sms, push): fans whose latest decision across both systems grants it (int_fan_consents), and of those the reachable ones, who also have a usable contact (an e-mail address for email, an E.164 phone for sms; push needs the consent only). Split by the system the deciding consent came from. reachable_rate = reachable_fans / total_fans.
-- test: unique(purpose, channel)
-- test: not_null(purpose, channel, total_fans, fans_with_contact, consented_fans, reachable_fans, withdrawn_fans)
-- test: accepted_values(channel: email, sms, push)

with

fans as (

    select * from marts.dim_fan

),

fan_consents as (

    select * from intermediate.int_fan_consents

),

consent_channels as (

    select * from seeds.consent_channels

),

-- every purpose a channel serves, so a combination nobody has answered shows zeros
purposes as (

    select distinct
        purpose,
        channel,

    from consent_channels
    where channel is not null

),

-- A usable address for each channel. Push goes to the club's app, and nothing in either
-- API ties an app installation to a fan (push subscriptions are webhooks of the
-- organization), so the consent is all that push needs.
fan_contacts as (

    select
        fan_id,
        email is not null and regexp_full_match(email, '[^@\s]+@[^@\s]+\.[^@\s]+') as has_email,
        phone_e164 is not null as has_phone,

    from fans

),

fan_channels as (

    select
        fan_contacts.fan_id,
        purposes.purpose,
        purposes.channel,
        case purposes.channel
            when 'email' then fan_contacts.has_email
            when 'sms' then fan_contacts.has_phone
            when 'push' then true
        end as has_contact,

    from fan_contacts
    cross join purposes

),

decided as (

    select
        fan_channels.*,
        fan_consents.is_granted,
        fan_consents.source_system,

    from fan_channels
    left join fan_consents
        on fan_consents.fan_id = fan_channels.fan_id
        and fan_consents.purpose = fan_channels.purpose
        and fan_consents.channel = fan_channels.channel

),

final as (

    select
        purpose,
        channel,
        count(*) as total_fans,
        count(*) filter (where has_contact) as fans_with_contact,
        count(*) filter (where is_granted) as consented_fans,
        count(*) filter (where is_granted and source_system = 'ticketing') as consented_fans_ticketing,
        count(*) filter (where is_granted and source_system = 'engagement') as consented_fans_engagement,
        count(*) filter (where is_granted and has_contact) as reachable_fans,
        count(*) filter (where is_granted and has_contact and source_system = 'ticketing') as reachable_fans_ticketing,
        count(*) filter (where is_granted and has_contact and source_system = 'engagement') as reachable_fans_engagement,
        count(*) filter (where not is_granted) as withdrawn_fans,
        count(*) filter (where is_granted and has_contact) / count(*) as reachable_rate,

    from decided
    group by purpose, channel

)

select * from final
