-- materialized: table
-- description: One row per consent purpose and channel (email, sms, push; none for a purpose that names no channel, such as profiling): fans whose latest decision across both systems grants it (int_fan_consents), and of those the reachable ones, who also have a usable contact (an e-mail address for email, an E.164 phone for sms, evidence of the club's app for push: a purchase on a channel the club's sales channels mark as its app, or an in-app merchandise transaction; a purpose without a channel needs none). Split by the system the deciding consent came from. Purposes and channels are the club's (int_club_consent_meanings); blocked_fans are those a refusal of a consent the mapping does not know keeps from every purpose and channel (int_fan_consents). Decisions on such consents are one row of their own, purpose unmapped and channel none, which reaches nobody. reachable_rate = reachable_fans / total_fans. purpose_name and channel_name are the club's words for them (display_names.csv).
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

consent_meanings as (

    select * from intermediate.int_club_consent_meanings

),

app_sales_channels as (

    select * from intermediate.int_club_sales_channels
    where is_app

),

-- decisions on consents the club's mapping does not know yet (int_consent_events)
unmapped_events as (

    select * from intermediate.int_consent_events
    where is_current_state
        and mapping_state <> 'mapped'

),

tickets as (

    select * from marts.fct_tickets

),

merchandise_lines as (

    select * from marts.fct_merchandise_lines

),

ticketing_users as not materialized (

    select * from intermediate.int_ticketing_user_fans

),

-- every purpose a channel serves, so a combination nobody has answered shows zeros; a
-- purpose without a channel (profiling) is one row with channel none
purposes as (

    select distinct
        purpose,
        coalesce(channel, 'none') as channel,

    from consent_meanings

),

-- Push goes to the club's app. Neither API ties an app installation to a fan (push
-- subscriptions are webhooks of the organization), so the evidence is a purchase made in
-- the app: an order on a channel the club marks as its app (int_club_sales_channels) or an in-app
-- merchandise transaction, whatever became of the order.
app_users as (

    select distinct
        ticketing_users.fan_id,

    -- the app's buying accounts first (far fewer than its tickets), then their fans
    from (
        select distinct tickets.buyer_user_id
        from tickets
        inner join app_sales_channels
            on app_sales_channels.resource = 'tickets'
            and app_sales_channels.channel = tickets.order_channel
    ) as app_buyers
    inner join ticketing_users
        on ticketing_users.user_id = app_buyers.buyer_user_id

    union

    select distinct
        ticketing_users.fan_id,

    from merchandise_lines
    inner join ticketing_users
        on ticketing_users.user_id = merchandise_lines.user_id
    left join app_sales_channels
        on app_sales_channels.resource = 'merchandise'
        and app_sales_channels.channel = merchandise_lines.sale_channel
    where merchandise_lines.is_in_app
        or app_sales_channels.channel is not null

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

-- how many fans have a usable address for each channel: counted once over the fans, not
-- over every fan and purpose
contact_counts as (

    select
        count(*) as total_fans,
        count(*) filter (where has_email) as fans_with_email,
        count(*) filter (where has_phone) as fans_with_phone,
        count(*) filter (where has_app) as fans_with_app,

    from fan_contacts

),

-- each fan's decision for a purpose and channel, with whether that fan can be reached there
-- (a fan who never answered counts in total_fans only)
decided as (

    select
        purposes.purpose,
        purposes.channel,
        fan_consents.is_granted,
        fan_consents.source_system,
        fan_consents.is_blocked_by_unmapped,
        case purposes.channel
            when 'email' then fan_contacts.has_email
            when 'sms' then fan_contacts.has_phone
            when 'push' then fan_contacts.has_app
            when 'none' then true
        end as has_contact,

    from fan_consents
    inner join fan_contacts
        on fan_contacts.fan_id = fan_consents.fan_id
    inner join purposes
        on purposes.purpose = fan_consents.purpose
        and purposes.channel = coalesce(fan_consents.channel, 'none')

),

decision_counts as (

    select
        purpose,
        channel,
        count(*) filter (where is_granted) as consented_fans,
        count(*) filter (where is_granted and source_system = 'ticketing') as consented_fans_ticketing,
        count(*) filter (where is_granted and source_system = 'engagement') as consented_fans_engagement,
        count(*) filter (where is_granted and has_contact) as reachable_fans,
        count(*) filter (where is_granted and has_contact and source_system = 'ticketing') as reachable_fans_ticketing,
        count(*) filter (where is_granted and has_contact and source_system = 'engagement') as reachable_fans_engagement,
        count(*) filter (where not is_granted) as withdrawn_fans,
        count(*) filter (where is_blocked_by_unmapped) as blocked_fans,

    from decided
    group by purpose, channel

),

final as (

    select
        purposes.purpose,
        purposes.channel,
        contact_counts.total_fans,
        case purposes.channel
            when 'email' then contact_counts.fans_with_email
            when 'sms' then contact_counts.fans_with_phone
            when 'push' then contact_counts.fans_with_app
            when 'none' then contact_counts.total_fans
        end as fans_with_contact,
        coalesce(decision_counts.consented_fans, 0) as consented_fans,
        coalesce(decision_counts.consented_fans_ticketing, 0) as consented_fans_ticketing,
        coalesce(decision_counts.consented_fans_engagement, 0) as consented_fans_engagement,
        coalesce(decision_counts.reachable_fans, 0) as reachable_fans,
        coalesce(decision_counts.reachable_fans_ticketing, 0) as reachable_fans_ticketing,
        coalesce(decision_counts.reachable_fans_engagement, 0) as reachable_fans_engagement,
        coalesce(decision_counts.withdrawn_fans, 0) as withdrawn_fans,
        coalesce(decision_counts.blocked_fans, 0) as blocked_fans,
        coalesce(decision_counts.reachable_fans, 0) / contact_counts.total_fans as reachable_rate,

    from purposes
    cross join contact_counts
    left join decision_counts
        on decision_counts.purpose = purposes.purpose
        and decision_counts.channel = purposes.channel
    -- no fans, no rows
    where contact_counts.total_fans > 0

),

-- What the mapping does not know is shown, never dropped: one row of fans whose present
-- decision is on an unmapped or contradicting consent. Nobody is reachable through it.
unmapped as (

    select
        'unmapped' as purpose,
        'none' as channel,
        contact_counts.total_fans,
        0 as fans_with_contact,
        count(distinct unmapped_events.fan_id) filter (where unmapped_events.is_granted) as consented_fans,
        count(distinct unmapped_events.fan_id) filter (where unmapped_events.is_granted and unmapped_events.source_system = 'ticketing') as consented_fans_ticketing,
        count(distinct unmapped_events.fan_id) filter (where unmapped_events.is_granted and unmapped_events.source_system = 'engagement') as consented_fans_engagement,
        0 as reachable_fans,
        0 as reachable_fans_ticketing,
        0 as reachable_fans_engagement,
        count(distinct unmapped_events.fan_id) filter (where not unmapped_events.is_granted) as withdrawn_fans,
        count(distinct unmapped_events.fan_id) filter (where not unmapped_events.is_granted) as blocked_fans,
        0 as reachable_rate,

    from unmapped_events
    cross join contact_counts
    group by contact_counts.total_fans
    having count(*) > 0

),

combined as (

    select * from final
    union all by name
    select * from unmapped

),

display_names as (

    select * from macros.club_display_names()

),

-- the club's words for each purpose and channel, the code where it has none
named as (

    select
        combined.*,
        coalesce(purpose_names.display_name, combined.purpose) as purpose_name,
        coalesce(channel_names.display_name, combined.channel) as channel_name,

    from combined
    left join display_names as purpose_names
        on purpose_names.kind = 'purpose'
        and purpose_names.code = combined.purpose
    left join display_names as channel_names
        on channel_names.kind = 'channel'
        and channel_names.code = combined.channel

)

select * from named

