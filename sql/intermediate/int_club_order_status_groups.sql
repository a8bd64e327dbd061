-- materialized: view
-- description: The club's order statuses (the club's order_status_groups.csv, or the default: macros.club_order_status_groups()), for tickets and merchandise alike: each status id AND its name in one group, paid, cancelled, refunded, pending or other. The documents list no order status, so every value is the club's vocabulary; one not listed here is unmapped and lands in the group other.
-- test: unique(order_status_id, order_status_name)
-- test: not_null(order_status_id, order_status_name, status_group)
-- test: accepted_values(status_group: paid, cancelled, refunded, pending, other)

with

groups as (

    select * from macros.club_order_status_groups()

),

final as (

    select
        cast(order_status_id as bigint) as order_status_id,
        cast(order_status_name as varchar) as order_status_name,
        lower(trim(cast(status_group as varchar))) as status_group,

    from groups

)

select * from final
