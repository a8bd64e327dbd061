-- materialized: table
-- description: The fan-360 view of the top fans: the fans who spent most (tickets and merchandise, completed orders, NOK incl. VAT), ranked by total_spend (competition ranking 1, 1, 3) down to top_fans_count in seeds.metric_settings (100 by default, ties at the last place included); fans who spent nothing are not ranked. Contact details, member category, spend, matches attended and leaderboard place from dim_fan and fan_engagement, and every source record linked to the fan (fan_identity_links) as text "system record_id (match rule)". Personal data. Loyalty is in fan_loyalty (opt-in).
-- personal: first_name (name), last_name (name), email (email), phone_e164 (phone), birth_date (birth_date)
-- test: unique(fan_id)
-- test: not_null(fan_id, spend_rank, total_spend, linked_record_count, linked_records)
-- test: relationships(fan_id -> marts.dim_fan.fan_id)

with

fans as (

    select * from marts.dim_fan

),

fan_engagement as (

    select * from marts.fan_engagement

),

identity_links as (

    select * from marts.fan_identity_links

),

metric_settings as (

    select * from seeds.metric_settings

),

-- one row even when the setting is missing: its null then ranks no one
settings as (

    select
        max(cast(value as integer)) filter (where name = 'top_fans_count') as top_fans_count,

    from metric_settings

),

-- ranked on int_fan_purchases' spends, which dim_fan's are (its 18-digit decimals scan and sort
-- at a fraction of the cost of dim_fan's 38), then the top fans' rows read
ranked as (

    select
        fan_id,
        rank() over (order by coalesce(ticket_spend, 0) + coalesce(merchandise_spend, 0) desc) as spend_rank,

    from intermediate.int_fan_purchases
    where coalesce(ticket_spend, 0) + coalesce(merchandise_spend, 0) > 0

),

top as (

    select
        fans.*,
        fans.ticket_spend + fans.merchandise_spend as total_spend,
        ranked.spend_rank,

    from ranked
    cross join settings
    inner join fans
        on fans.fan_id = ranked.fan_id
    where ranked.spend_rank <= settings.top_fans_count

),

linked_records as (

    select
        identity_links.fan_id,
        count(*) as linked_record_count,
        string_agg(
            identity_links.system || ' ' || identity_links.record_id || ' (' || identity_links.match_rule || ')',
            '; '
            order by identity_links.system, identity_links.record_id
        ) as linked_records,

    from identity_links
    inner join top
        on top.fan_id = identity_links.fan_id
    group by identity_links.fan_id

),

final as (

    select
        top.spend_rank,
        top.fan_id,
        top.first_name,
        top.last_name,
        top.email,
        top.phone_e164,
        top.birth_date,
        top.is_member,
        top.member_category_name,
        top.tickets_bought,
        top.ticket_spend,
        top.merchandise_orders,
        top.merchandise_spend,
        top.total_spend,
        top.matches_attended,
        top.first_purchase_at,
        top.last_purchase_at,
        fan_engagement.leaderboard_position,
        fan_engagement.leaderboard_score,
        top.has_email_consent,
        top.has_sms_consent,
        top.has_push_consent,
        linked_records.linked_record_count,
        linked_records.linked_records,

    from top
    left join fan_engagement
        on fan_engagement.fan_id = top.fan_id
    left join linked_records
        on linked_records.fan_id = top.fan_id

)

select * from final
