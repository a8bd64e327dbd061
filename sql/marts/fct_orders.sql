-- description: One row per merchandise order (id_order): its lines summed; revenue in NOK incl. VAT. status_group is the club's group of its order status (fct_merchandise_lines); is_completed: paid.
-- test: unique(order_id)
-- test: not_null(order_id, order_revenue)

with

merchandise_lines as (

    select * from marts.fct_merchandise_lines

),

orders as (

    select
        order_id,
        -- Order-level fields repeat on every line; the most recently updated line wins.
        arg_max(order_no, updated_at) as order_no,
        arg_max(user_id, updated_at) as user_id,
        min(ordered_at) as ordered_at,
        arg_max(order_status_name, updated_at) as order_status_name,
        arg_max(status_group, updated_at) as status_group,
        arg_max(payment_type_name, updated_at) as payment_type_name,
        arg_max(sale_channel, updated_at) as sale_channel,
        arg_max(is_in_app, updated_at) as is_in_app,
        count(*) as line_count,
        sum(price_subtotal) as order_subtotal,
        sum(vat_amount) as order_vat,
        sum(line_revenue) as order_revenue,
        max(updated_at) as updated_at,

    from merchandise_lines
    group by order_id

),

final as (

    select
        order_id,
        order_no,
        user_id,
        ordered_at,
        order_status_name,
        status_group,
        status_group = 'paid' as is_completed,
        payment_type_name,
        sale_channel,
        is_in_app,
        line_count,
        order_subtotal,
        order_vat,
        order_revenue,
        updated_at,

    from orders

)

select * from final
