-- materialized: incremental
-- unique_key: fan_id
-- incremental_delete: fan_id in (select fan_id from macros.fans_dropped('marts.dim_fan'))
-- description: One row per fan, a real person across both systems (see fan_identity_links): best contact details and names, linked records per system, member category, consent per channel from both systems, purchases and attendance. Amounts in NOK incl. VAT. matches_attended counts real matches (not the season-ticket sale) attended on an issued ticket of a completed order, season-ticket seats included; tickets_bought counts a season ticket once (its sale), not its seats (int_fan_purchases). Incremental: a build computes the fans int_fan_changes stamped since its last build (records, contact details, consents), the fans int_fan_purchases computed since (tickets, merchandise), and the fans whose member category differs from the stored one, and deletes the fans gone (macros.fans_dropped: looked for only when the row counts say some are); see docs/decisions.md "dim_fan incremental by fan".
-- personal: first_name (name), last_name (name), email (email), phone_e164 (phone), birth_date (birth_date)
-- test: unique(fan_id)
-- test: not_null(fan_id, record_count, is_member, ticket_spend, merchandise_spend, matches_attended)
-- test: relationships(ticketing_user_id -> staging.stg_ticketing__users.user_id)
-- test: relationships(customer_profile_id -> staging.stg_engagement__customer_profiles.customer_profile_id)

with

-- The fans changed since this model's last build, by the models that follow each input per fan.
changed_fans as (

    select fan_id from intermediate.int_fan_changes
    where changed_at > coalesce(macros.model_built_at('marts.dim_fan'), '-infinity')

    union

    select fan_id from intermediate.int_fan_purchases
    where changed_at > coalesce(macros.model_built_at('marts.dim_fan'), '-infinity')

),

-- The fans this build computes: the changed ones and those whose member category differs from
-- the stored one (int_fan_memberships is small: compared both ways). One condition that reads
-- this table, which the first build (and --full-refresh) drops: every fan.
computed_fans as (

    select fan_id from intermediate.int_fan_contacts
    where fan_id in (select fan_id from changed_fans)
        or fan_id in (
            select fan_id from (
                select fan_id, member_category_id, member_category_name from intermediate.int_fan_memberships
                except
                select fan_id, member_category_id, member_category_name from marts.dim_fan
            )
        )
        or fan_id in (
            select fan_id from (
                select fan_id, member_category_id, member_category_name from marts.dim_fan
                where member_category_id is not null or member_category_name is not null
                except
                select fan_id, member_category_id, member_category_name from intermediate.int_fan_memberships
            )
        )
        or not exists (select 1 from marts.dim_fan)

),

-- names, contact details and linked records: identity resolution's part of a fan
contacts as (

    select * from intermediate.int_fan_contacts
    semi join computed_fans
        on computed_fans.fan_id = int_fan_contacts.fan_id

),

fan_consents as (

    select * from intermediate.int_fan_consents
    semi join computed_fans
        on computed_fans.fan_id = int_fan_consents.fan_id

),

-- tickets and merchandise, as each fan's accounts bought and held them
purchases as (

    select * from intermediate.int_fan_purchases
    semi join computed_fans
        on computed_fans.fan_id = int_fan_purchases.fan_id

),

-- a fan with several member entries shows the most recently updated one (int_fan_memberships)
memberships as (

    select * from intermediate.int_fan_memberships
    semi join computed_fans
        on computed_fans.fan_id = int_fan_memberships.fan_id

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
        least(purchases.first_ticket_purchase_at, purchases.first_merchandise_purchase_at) as first_purchase_at,
        greatest(purchases.last_ticket_purchase_at, purchases.last_merchandise_purchase_at) as last_purchase_at,
        coalesce(purchases.tickets_bought, 0) as tickets_bought,
        coalesce(cast(purchases.ticket_spend as decimal(38, 2)), 0) as ticket_spend,
        coalesce(purchases.merchandise_orders, 0) as merchandise_orders,
        coalesce(cast(purchases.merchandise_spend as decimal(38, 2)), 0) as merchandise_spend,
        coalesce(purchases.matches_attended, 0) as matches_attended,

    from contacts
    left join memberships
        on memberships.fan_id = contacts.fan_id
    left join consents_by_channel
        on consents_by_channel.fan_id = contacts.fan_id
    left join partner_consents
        on partner_consents.fan_id = contacts.fan_id
    left join purchases
        on purchases.fan_id = contacts.fan_id

)

select * from final
