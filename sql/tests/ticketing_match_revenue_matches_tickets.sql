-- description: match_summary's ticket revenue, in total and split by channel and by order type, equals the sum of ticket_price over the sold tickets in fct_tickets.
-- severity: error

with

match_summary as (

    select * from marts.match_summary

),

tickets as (

    select * from marts.fct_tickets

),

ticket_revenue as (

    select
        match_id,
        sum(ticket_price) as ticket_revenue,

    from tickets
    where is_sold
    group by match_id

),

compared as (

    select
        coalesce(match_summary.match_id, ticket_revenue.match_id) as match_id,
        match_summary.ticket_revenue as summary_revenue,
        coalesce(ticket_revenue.ticket_revenue, 0) as tickets_revenue,
        coalesce(list_sum(map_values(match_summary.ticket_revenue_by_channel)), 0) as summary_revenue_by_channel,
        coalesce(list_sum(map_values(match_summary.ticket_revenue_by_order_type)), 0) as summary_revenue_by_order_type,

    from match_summary
    full outer join ticket_revenue
        on match_summary.match_id = ticket_revenue.match_id

),

final as (

    select * from compared
    where summary_revenue is distinct from tickets_revenue
        or summary_revenue_by_channel <> tickets_revenue
        or summary_revenue_by_order_type <> tickets_revenue

)

select * from final
