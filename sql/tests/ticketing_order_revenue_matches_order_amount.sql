-- description: An order's revenue (sum of its lines) equals the order_amount the API repeats on each line; a mismatch means lines are missing or amounts disagree.
-- severity: warn

with

orders as (

    select * from marts.fct_orders

),

merchandise as (

    select * from staging.stg_ticketing__merchandise

),

order_amounts as (

    select
        order_id,
        arg_max(order_amount, updated_at) as order_amount,

    from merchandise
    group by order_id

),

final as (

    select
        orders.order_id,
        orders.line_count,
        orders.order_revenue,
        order_amounts.order_amount,

    from orders
    inner join order_amounts
        on orders.order_id = order_amounts.order_id
    where orders.order_revenue is distinct from order_amounts.order_amount

)

select * from final
