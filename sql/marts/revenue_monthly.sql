-- description: One row per calendar month (UTC, of the order date), season, product line (ticket, season_ticket, merchandise; unmapped for priced tickets of an order type the club's mapping does not group) and sales channel (each system's own channel names; channel_name the club's one name for it across both): revenue of paid orders (the club's order status groups), and the amounts of cancelled, refunded, pending and other orders (other: a status the club's mapping does not know) kept apart, in NOK incl. VAT; every line of int_revenue_lines counts in exactly one of them. Sum the rows for a month, a season or a channel; tickets and merchandise together are all product lines. A season ticket belongs to the season of its seats, any other ticket to its match's, merchandise to the season running when it was ordered.
-- test: unique(month, season, product_line, channel)
-- test: not_null(month, product_line, channel, revenue, cancelled_amount, refunded_amount, pending_amount, other_amount)
-- test: accepted_values(product_line: ticket, season_ticket, merchandise, unmapped)

with

revenue_lines as (

    select * from intermediate.int_revenue_lines

),

display_names as (

    select * from macros.club_display_names()
    where kind = 'product_line'

),

final as (

    select
        macros.utc_month(revenue_lines.ordered_at) as month,
        revenue_lines.season,
        revenue_lines.product_line,
        coalesce(any_value(display_names.display_name), revenue_lines.product_line) as product_line_name,
        revenue_lines.channel,
        any_value(revenue_lines.channel_name) as channel_name,
        coalesce(sum(amount) filter (where status_group = 'paid'), 0) as revenue,
        coalesce(sum(vat_amount) filter (where status_group = 'paid'), 0) as vat,
        count(*) filter (where status_group = 'paid') as items_sold,
        count(distinct order_id) filter (where status_group = 'paid') as orders,
        coalesce(sum(amount) filter (where status_group = 'cancelled'), 0) as cancelled_amount,
        count(*) filter (where status_group = 'cancelled') as cancelled_items,
        coalesce(sum(amount) filter (where status_group = 'refunded'), 0) as refunded_amount,
        count(*) filter (where status_group = 'refunded') as refunded_items,
        coalesce(sum(amount) filter (where status_group = 'pending'), 0) as pending_amount,
        count(*) filter (where status_group = 'pending') as pending_items,
        coalesce(sum(amount) filter (where status_group = 'other'), 0) as other_amount,
        count(*) filter (where status_group = 'other') as other_items,

    from revenue_lines
    left join display_names
        on display_names.code = revenue_lines.product_line
    group by month, revenue_lines.season, revenue_lines.product_line, revenue_lines.channel

)

select * from final
