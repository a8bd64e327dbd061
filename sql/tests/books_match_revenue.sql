-- description: Books that balance: the ticket revenue of every match (match_summary) adds up to the ticket revenue of revenue_monthly (product lines ticket, season_ticket and unmapped, paid). A row here means a priced ticket counts in one and not the other, such as a distributed ticket (no order type) that carries a price.
-- severity: error

with

match_summary as (

    select * from marts.match_summary

),

revenue_monthly as (

    select * from marts.revenue_monthly
    where product_line <> 'merchandise'

),

final as (

    select
        (select coalesce(sum(ticket_revenue), 0) from match_summary) as match_ticket_revenue,
        (select coalesce(sum(revenue), 0) from revenue_monthly) as revenue_monthly_ticket_revenue,

)

select * from final
where match_ticket_revenue <> revenue_monthly_ticket_revenue
