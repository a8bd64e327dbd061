-- materialized: table
-- description: One row per campaign app: its participants, those tied to a fan by e-mail, and the tied fans who bought tickets or merchandise (completed orders) within N days after the campaign started (N = campaign_conversion_days in seeds.metric_settings, 30 by default). conversion_rate = converted_fans / matched_fans. Amounts in NOK incl. VAT.
-- as_of: build
-- test: unique(campaign_app_id)
-- test: not_null(campaign_app_id, conversion_window_days, participants, matched_participants, matched_fans, converted_fans, ticket_buyers, merchandise_buyers, converted_revenue)
-- test: relationships(campaign_app_id -> staging.stg_engagement__campaign_apps.campaign_app_id)

with

campaign_apps as (

    select * from staging.stg_engagement__campaign_apps
    where vanished_at is null

),

participants as (

    select * from staging.stg_engagement__participants
    where vanished_at is null

),

records as (

    select * from intermediate.int_identity_records

),

clusters as (

    select * from intermediate.int_identity_clusters

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

metric_settings as (

    select * from seeds.metric_settings

),

-- one row even when the setting is missing: its null then fails not_null(conversion_window_days)
settings as (

    select
        max(cast(value as integer)) filter (where name = 'campaign_conversion_days') as conversion_window_days,

    from metric_settings

),

campaigns as (

    select
        campaign_apps.*,
        settings.conversion_window_days,
        campaign_apps.starts_at + to_days(settings.conversion_window_days) as conversion_window_ends_at,

    from campaign_apps
    cross join settings

),

-- every fan carrying a participant's e-mail on any of their records, with the first-name key
-- of that record (only participants' e-mails: the other half million records cannot match)
fan_emails as (

    select distinct
        clusters.fan_id,
        records.email,
        records.first_name_key,

    from records
    semi join participants
        on participants.email = records.email
    inner join clusters
        on clusters.record_key = records.record_key

),

-- the participant's first name folded as int_identity_records folds names (sql/macros)
participants_keyed as (

    select
        participants.*,
        macros.first_name_key(participants.first_name) as first_name_key,

    from participants

),

candidates as (

    select
        participants_keyed.participant_id,
        fan_emails.fan_id,
        bool_or(fan_emails.first_name_key = participants_keyed.first_name_key) as has_same_first_name,

    from participants_keyed
    inner join fan_emails
        on fan_emails.email = participants_keyed.email
    group by participants_keyed.participant_id, fan_emails.fan_id

),

-- An e-mail of one fan ties the participant to them. A shared mailbox (several fans) ties
-- only when exactly one of those fans has the participant's first name; otherwise the
-- participant stays untied rather than credited to a housemate.
participant_fans as (

    select
        participant_id,
        case
            when count(*) = 1 then min(fan_id)
            when count(*) filter (where has_same_first_name) = 1 then min(fan_id) filter (where has_same_first_name)
        end as fan_id,

    from candidates
    group by participant_id

),

campaign_fans as (

    select distinct
        participants.campaign_app_id,
        participant_fans.fan_id,

    from participants
    inner join participant_fans
        on participant_fans.participant_id = participants.participant_id
    where participant_fans.fan_id is not null

),

-- the accounts of the participating fans, whose purchases alone can convert: their tickets are
-- found by joining these few accounts, not the million tickets to every account first
campaign_users as (

    select
        ticketing_users.fan_id,
        ticketing_users.user_id,

    from ticketing_users
    semi join campaign_fans
        on campaign_fans.fan_id = ticketing_users.fan_id

),

purchases as (

    select
        campaign_users.fan_id,
        tickets.ordered_at,
        'ticket' as purchase_type,
        tickets.ticket_price as amount,

    from tickets
    inner join campaign_users
        on campaign_users.user_id = tickets.buyer_user_id
    where tickets.is_sold

    union all

    select
        campaign_users.fan_id,
        merchandise_lines.ordered_at,
        'merchandise' as purchase_type,
        merchandise_lines.line_revenue as amount,

    from merchandise_lines
    inner join campaign_users
        on campaign_users.user_id = merchandise_lines.user_id
    where merchandise_lines.is_completed

),

-- purchases of each participating fan inside the campaign's window
fan_conversions as (

    select
        campaign_fans.campaign_app_id,
        campaign_fans.fan_id,
        bool_or(purchases.purchase_type = 'ticket') as bought_tickets,
        bool_or(purchases.purchase_type = 'merchandise') as bought_merchandise,
        sum(purchases.amount) as revenue,

    from campaign_fans
    inner join campaigns
        on campaigns.campaign_app_id = campaign_fans.campaign_app_id
    inner join purchases
        on purchases.fan_id = campaign_fans.fan_id
        and purchases.ordered_at >= campaigns.starts_at
        and purchases.ordered_at < campaigns.conversion_window_ends_at
    group by campaign_fans.campaign_app_id, campaign_fans.fan_id

),

participant_counts as (

    select
        participants.campaign_app_id,
        count(*) as participants,
        count(participant_fans.fan_id) as matched_participants,
        count(distinct participant_fans.fan_id) as matched_fans,

    from participants
    left join participant_fans
        on participant_fans.participant_id = participants.participant_id
    group by participants.campaign_app_id

),

conversion_counts as (

    select
        campaign_app_id,
        count(*) as converted_fans,
        count(*) filter (where bought_tickets) as ticket_buyers,
        count(*) filter (where bought_merchandise) as merchandise_buyers,
        sum(revenue) as converted_revenue,

    from fan_conversions
    group by campaign_app_id

),

final as (

    select
        campaigns.campaign_app_id,
        campaigns.campaign_app_name,
        campaigns.campaign_type,
        campaigns.status,
        campaigns.starts_at,
        campaigns.ends_at,
        campaigns.conversion_window_days,
        campaigns.conversion_window_ends_at,
        -- a window still open at build time can only grow
        campaigns.conversion_window_ends_at > current_timestamp as is_window_open,
        coalesce(participant_counts.participants, 0) as participants,
        coalesce(participant_counts.matched_participants, 0) as matched_participants,
        coalesce(participant_counts.matched_fans, 0) as matched_fans,
        coalesce(conversion_counts.converted_fans, 0) as converted_fans,
        coalesce(conversion_counts.ticket_buyers, 0) as ticket_buyers,
        coalesce(conversion_counts.merchandise_buyers, 0) as merchandise_buyers,
        coalesce(conversion_counts.converted_revenue, 0) as converted_revenue,
        coalesce(conversion_counts.converted_fans, 0) / nullif(participant_counts.matched_fans, 0) as conversion_rate,

    from campaigns
    left join participant_counts
        on participant_counts.campaign_app_id = campaigns.campaign_app_id
    left join conversion_counts
        on conversion_counts.campaign_app_id = campaigns.campaign_app_id

)

select * from final
