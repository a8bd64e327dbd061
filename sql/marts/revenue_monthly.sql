-- description: One row per calendar month (UTC, of the order date), season, product line (ticket, season_ticket, merchandise) and sales channel (each system's own channel names): revenue of completed orders, and the amounts of cancelled and refunded orders kept apart, in NOK incl. VAT. Sum the rows for a month, a season or a channel; tickets and merchandise together are all product lines. Tickets belong to their match's season, merchandise to the season running when it was ordered.
-- test: unique(month, season, product_line, channel)
-- test: not_null(month, product_line, channel, revenue, cancelled_amount, refunded_amount)
-- test: accepted_values(product_line: ticket, season_ticket, merchandise)

with

revenue_lines as (

    select * from intermediate.int_revenue_lines

),

final as (

    select
        cast(date_trunc('month', ordered_at at time zone 'UTC') as date) as month,
        season,
        product_line,
        channel,
        coalesce(sum(amount) filter (where order_status_name = 'Completed'), 0) as revenue,
        coalesce(sum(vat_amount) filter (where order_status_name = 'Completed'), 0) as vat,
        count(*) filter (where order_status_name = 'Completed') as items_sold,
        count(distinct order_id) filter (where order_status_name = 'Completed') as orders,
        coalesce(sum(amount) filter (where order_status_name = 'Cancelled'), 0) as cancelled_amount,
        count(*) filter (where order_status_name = 'Cancelled') as cancelled_items,
        coalesce(sum(amount) filter (where order_status_name = 'Refunded'), 0) as refunded_amount,
        count(*) filter (where order_status_name = 'Refunded') as refunded_items,

    from revenue_lines
    group by all

)

select * from final
