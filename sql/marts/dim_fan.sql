-- materialized: table
-- unique_key: fan_id
-- description: One row per fan, a real person across both systems (see fan_identity_links): best contact details and names, linked records per system, member category, consent per channel from both systems, purchases and attendance. Amounts in NOK incl. VAT. matches_attended counts real matches (not the season-ticket sale) attended on an issued ticket of a completed order, season-ticket seats included; tickets_bought counts a season ticket once (its sale), not its seats.
-- personal: first_name (name), last_name (name), email (email), phone_e164 (phone), birth_date (birth_date)
-- test: unique(fan_id)
-- test: not_null(fan_id, record_count, is_member, ticket_spend, merchandise_spend, matches_attended)
-- test: relationships(ticketing_user_id -> staging.stg_ticketing__users.user_id)
-- test: relationships(customer_profile_id -> staging.stg_engagement__customer_profiles.customer_profile_id)

with

-- names, contact details and linked records: identity resolution's part of a fan
contacts as (

    select * from intermediate.int_fan_contacts

),

-- each ticketing account's fan, by the account's id
ticketing_users as not materialized (

    select * from intermediate.int_ticketing_user_fans

),

fan_consents as not materialized (

    select * from intermediate.int_fan_consents

),

tickets as not materialized (

    select * from marts.fct_tickets

),

ticket_kinds as not materialized (

    select * from intermediate.int_ticket_kinds

),

merchandise_lines as (

    select * from marts.fct_merchandise_lines

),

-- a fan with several member entries shows the most recently updated one (int_fan_memberships)
memberships as (

    select * from intermediate.int_fan_memberships

),

-- the club's own marketing, per channel; null when the fan was never asked
consents_by_channel as (

    select
        fan_id,
        bool_or(is_granted) filter (where channel = 'email') as has_email_consent,
        max(decided_at) filter (where channel = 'email') as email_consent_decided_at,
        bool_or(is_granted) filter (where channel = 'sms') as has_sms_consent,
        max(decided_at) filter (where channel = 'sms') as sms_consent_decided_at,
        bool_or(is_granted) filter (where channel = 'push') as has_push_consent,
        max(decided_at) filter (where channel = 'push') as push_consent_decided_at,

    from fan_consents
    where purpose = 'club_marketing'
    group by fan_id

),

partner_consents as (

    select
        fan_id,
        bool_or(is_granted) as has_partner_consent,

    from fan_consents
    where purpose = 'partner_marketing'
    group by fan_id

),

-- Tickets count for the account that bought them, attendance for the one that held them.
-- A season ticket counts once, as its sale; the seats it gives on each match are not purchases.
ticket_purchases as (

    select
        ticketing_users.fan_id,
        count(*) as tickets_bought,
        sum(tickets.ticket_price) as ticket_spend,
        min(tickets.ordered_at) as first_ticket_purchase_at,
        max(tickets.ordered_at) as last_ticket_purchase_at,

    from tickets
    inner join ticket_kinds
        on ticket_kinds.ticket_id = tickets.ticket_id
    inner join ticketing_users
        on ticketing_users.user_id = tickets.buyer_user_id
    where tickets.is_sold
        and ticket_kinds.ticket_kind <> 'season_ticket_seat'
    group by ticketing_users.fan_id

),

-- real matches only, on tickets of completed orders (int_ticket_kinds)
attendance as (

    select
        ticketing_users.fan_id,
        count(distinct tickets.match_id) as matches_attended,

    from tickets
    inner join ticket_kinds
        on ticket_kinds.ticket_id = tickets.ticket_id
    inner join ticketing_users
        on ticketing_users.user_id = tickets.holder_user_id
    where ticket_kinds.is_counted_attendance
    group by ticketing_users.fan_id

),

merchandise_purchases as (

    select
        ticketing_users.fan_id,
        count(distinct merchandise_lines.order_id) as merchandise_orders,
        sum(merchandise_lines.line_revenue) as merchandise_spend,
        min(merchandise_lines.ordered_at) as first_merchandise_purchase_at,
        max(merchandise_lines.ordered_at) as last_merchandise_purchase_at,

    from merchandise_lines
    inner join ticketing_users
        on ticketing_users.user_id = merchandise_lines.user_id
    where merchandise_lines.is_completed
    group by ticketing_users.fan_id

),

final as (

    select
        contacts.fan_id,

        -- contact
        contacts.first_name,
        contacts.last_name,
        contacts.email,
        contacts.phone_e164,
        contacts.birth_date,

        -- linked records
        contacts.ticketing_user_id,
        contacts.customer_profile_id,
        contacts.record_count,
        contacts.ticketing_user_count,
        contacts.ticketing_member_count,
        contacts.engagement_customer_profile_count,
        contacts.engagement_person_count,
        contacts.weakest_match_rule,
        contacts.ticketing_user_count > 0 as has_ticketing_account,
        contacts.engagement_customer_profile_count > 0 as has_engagement_profile,

        -- membership
        contacts.ticketing_member_count > 0 as is_member,
        memberships.member_category_id,
        memberships.member_category_name,

        -- consent
        consents_by_channel.has_email_consent,
        consents_by_channel.email_consent_decided_at,
        consents_by_channel.has_sms_consent,
        consents_by_channel.sms_consent_decided_at,
        consents_by_channel.has_push_consent,
        consents_by_channel.push_consent_decided_at,
        partner_consents.has_partner_consent,

        -- purchases and attendance (completed orders)
        least(ticket_purchases.first_ticket_purchase_at, merchandise_purchases.first_merchandise_purchase_at) as first_purchase_at,
        greatest(ticket_purchases.last_ticket_purchase_at, merchandise_purchases.last_merchandise_purchase_at) as last_purchase_at,
        coalesce(ticket_purchases.tickets_bought, 0) as tickets_bought,
        coalesce(ticket_purchases.ticket_spend, 0) as ticket_spend,
        coalesce(merchandise_purchases.merchandise_orders, 0) as merchandise_orders,
        coalesce(merchandise_purchases.merchandise_spend, 0) as merchandise_spend,
        coalesce(attendance.matches_attended, 0) as matches_attended,

    from contacts
    left join memberships
        on memberships.fan_id = contacts.fan_id
    left join consents_by_channel
        on consents_by_channel.fan_id = contacts.fan_id
    left join partner_consents
        on partner_consents.fan_id = contacts.fan_id
    left join ticket_purchases
        on ticket_purchases.fan_id = contacts.fan_id
    left join merchandise_purchases
        on merchandise_purchases.fan_id = contacts.fan_id
    left join attendance
        on attendance.fan_id = contacts.fan_id

)

select * from final
