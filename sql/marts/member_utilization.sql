-- description: One row per member: ticket pool used against its total. A total of -1 is unlimited: is_unlimited, no total and no utilization.
-- test: unique(member_id)
-- test: not_null(member_id, is_unlimited)

with

members as (

    select * from staging.stg_ticketing__members

),

final as (

    select
        member_id,
        member_name,
        phone_e164,
        member_category_id,
        member_category_name,
        max_tickets_per_match,
        has_unlimited_pool as is_unlimited,
        ticket_pool_used,
        case when not has_unlimited_pool then ticket_pool_total end as ticket_pool_total,
        case when not has_unlimited_pool then ticket_pool_total - ticket_pool_used end as ticket_pool_remaining,
        case
            when not has_unlimited_pool and ticket_pool_total > 0
                then ticket_pool_used / ticket_pool_total
        end as pool_utilization,
        ticket_pool_total_text,
        updated_at,

    from members

)

select * from final
