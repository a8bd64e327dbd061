-- description: One row per member: ticket pool used against its total. A total of -1 is unlimited: is_unlimited, no total and no utilization. is_near_pool_limit: a limited pool used to at least pool_near_limit_share (seeds.metric_settings, 0.8 by default) of its total; has_never_used_pool: nothing of the pool used (ticket_pool_used = 0), unlimited pools included.
-- personal: member_name (name), phone_e164 (phone)
-- test: unique(member_id)
-- test: not_null(member_id, is_unlimited, near_limit_share, is_near_pool_limit, has_never_used_pool)

with

members as (

    select * from staging.stg_ticketing__members

),

metric_settings as (

    select * from seeds.metric_settings

),

-- one row even when the setting is missing: its null then fails not_null(near_limit_share)
settings as (

    select
        max(cast(value as double)) filter (where name = 'pool_near_limit_share') as near_limit_share,

    from metric_settings

),

utilization as (

    select
        members.member_id,
        members.member_name,
        members.phone_e164,
        members.member_category_id,
        members.member_category_name,
        members.max_tickets_per_match,
        members.has_unlimited_pool as is_unlimited,
        members.ticket_pool_used,
        case when not members.has_unlimited_pool then members.ticket_pool_total end as ticket_pool_total,
        case when not members.has_unlimited_pool then members.ticket_pool_total - members.ticket_pool_used end as ticket_pool_remaining,
        case
            when not members.has_unlimited_pool and members.ticket_pool_total > 0
                then members.ticket_pool_used / members.ticket_pool_total
        end as pool_utilization,
        members.ticket_pool_total_text,
        members.updated_at,
        settings.near_limit_share,

    from members
    cross join settings

),

final as (

    select
        member_id,
        member_name,
        phone_e164,
        member_category_id,
        member_category_name,
        max_tickets_per_match,
        is_unlimited,
        ticket_pool_used,
        ticket_pool_total,
        ticket_pool_remaining,
        pool_utilization,
        near_limit_share,
        coalesce(pool_utilization >= near_limit_share, false) as is_near_pool_limit,
        coalesce(ticket_pool_used = 0, false) as has_never_used_pool,
        ticket_pool_total_text,
        updated_at,

    from utilization

)

select * from final
