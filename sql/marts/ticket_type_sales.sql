-- description: One row per season, product line (ticket: single tickets; season_ticket: season tickets), ticket type and price category: tickets sold (completed orders), revenue and average price in NOK incl. VAT, and cancelled and refunded tickets. Season-ticket seats and distributed tickets carry no price and are left out. average_price = revenue / tickets_sold.
-- test: unique(season, product_line, ticket_type_name, price_category_name)
-- test: not_null(product_line, tickets_sold, revenue)
-- test: accepted_values(product_line: ticket, season_ticket)

with

tickets as (

    select * from marts.fct_tickets

),

ticket_kinds as (

    select * from intermediate.int_ticket_kinds
    where ticket_kind in ('single', 'season_ticket')

),

priced_tickets as (

    select
        ticket_kinds.season,
        case ticket_kinds.ticket_kind when 'season_ticket' then 'season_ticket' else 'ticket' end as product_line,
        tickets.ticket_type_name,
        tickets.price_category_name,
        tickets.order_status_name,
        tickets.ticket_price as amount,

    from tickets
    inner join ticket_kinds
        on ticket_kinds.ticket_id = tickets.ticket_id

),

final as (

    select
        season,
        product_line,
        ticket_type_name,
        price_category_name,
        count(*) filter (where order_status_name = 'Completed') as tickets_sold,
        coalesce(sum(amount) filter (where order_status_name = 'Completed'), 0) as revenue,
        avg(amount) filter (where order_status_name = 'Completed') as average_price,
        count(*) filter (where order_status_name = 'Cancelled') as tickets_cancelled,
        count(*) filter (where order_status_name = 'Refunded') as tickets_refunded,

    from priced_tickets
    group by all

)

select * from final
