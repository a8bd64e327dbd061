-- materialized: table
-- description: One row per consent purpose and channel (email, sms, push; none for a purpose that names no channel, such as profiling): fans whose latest decision across both systems grants it (int_fan_consents), and of those the reachable ones, who also have a usable contact (an e-mail address for email, an E.164 phone for sms, evidence of the club's app for push: a purchase in the app; a purpose without a channel needs none). Split by the system the deciding consent came from. reachable_rate = reachable_fans / total_fans.
-- test: unique(purpose, channel)
-- test: not_null(purpose, channel, total_fans, fans_with_contact, consented_fans, reachable_fans, withdrawn_fans)
-- test: accepted_values(channel: email, sms, push, none)

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

app_sales_channels as (

    select * from seeds.app_sales_channels

),

tickets as (

    select * from marts.fct_tickets

),

merchandise_lines as (

    select * from marts.fct_merchandise_lines

),

ticketing_users as (

    select * from intermediate.int_ticketing_user_fans

),

-- every purpose a channel serves, so a combination nobody has answered shows zeros; a
-- purpose without a channel (profiling) is one row with channel none
purposes as (

    select distinct
        purpose,
        coalesce(channel, 'none') as channel,

    from consent_channels

),

-- Push goes to the club's app. Neither API ties an app installation to a fan (push
-- subscriptions are webhooks of the organization), so the evidence is a purchase made in
-- the app: a ticket order on an app channel (seeds.app_sales_channels) or an in-app
-- merchandise transaction, whatever became of the order.
app_users as (

    select distinct
        ticketing_users.fan_id,

    from tickets
    inner join app_sales_channels
        on app_sales_channels.system = 'ticketing'
        and app_sales_channels.channel = tickets.order_channel
    inner join ticketing_users
        on ticketing_users.user_id = tickets.buyer_user_id

    union

    select distinct
        ticketing_users.fan_id,

    from merchandise_lines
    inner join ticketing_users
        on ticketing_users.user_id = merchandise_lines.user_id
    where merchandise_lines.is_in_app

),

-- a usable address for each channel
fan_contacts as (

    select
        fans.fan_id,
        fans.email is not null and regexp_full_match(fans.email, '[^@\s]+@[^@\s]+\.[^@\s]+') as has_email,
        fans.phone_e164 is not null as has_phone,
        app_users.fan_id is not null as has_app,

    from fans
    left join app_users
        on app_users.fan_id = fans.fan_id

),

fan_channels as (

    select
        fan_contacts.fan_id,
        purposes.purpose,
        purposes.channel,
        case purposes.channel
            when 'email' then fan_contacts.has_email
            when 'sms' then fan_contacts.has_phone
            when 'push' then fan_contacts.has_app
            when 'none' then true
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
        and coalesce(fan_consents.channel, 'none') = fan_channels.channel

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
