-- materialized: table
-- unique_key: merchandise_line_id
-- description: One row per sold merchandise item (order line). Amounts in NOK incl. VAT unless named subtotal; line_revenue = price_subtotal + vat_amount. status_group is the club's group of the order status (int_club_order_status_groups: paid, cancelled, refunded, pending; other where the mapping does not know the status and its name); is_completed: paid.
-- test: unique(merchandise_line_id)
-- test: not_null(merchandise_line_id, order_id, line_revenue, status_group)
-- test: accepted_values(status_group: paid, cancelled, refunded, pending, other)
-- test[warn]: relationships(user_id -> staging.stg_ticketing__users.user_id)

with

merchandise as (

    select * from staging.stg_ticketing__merchandise

),

order_status_groups as (

    select * from intermediate.int_club_order_status_groups

),

final as (

    select
        merchandise_line_id,
        order_id,
        order_no,
        user_id,
        ordered_at,
        merchandise.order_status_id,
        merchandise.order_status_name,
        coalesce(order_status_groups.status_group, 'other') as status_group,
        order_status_groups.status_group is not distinct from 'paid' as is_completed,
        payment_type_name,
        sale_channel,
        is_in_app,
        product_id,
        product_name,
        product_size,
        base_price,
        additional_price,
        discount_amount,
        price_subtotal,
        vat_amount,
        vat_percentage,
        price_subtotal + vat_amount as line_revenue,
        final_price,
        refunded_amount,
        redeem_status_name,
        updated_at,

    from merchandise
    left join order_status_groups
        on order_status_groups.order_status_id = merchandise.order_status_id
        and order_status_groups.order_status_name = merchandise.order_status_name

)

select * from final
