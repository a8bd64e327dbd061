-- description: One row per season, product line (ticket: single tickets; season_ticket: season tickets; unmapped: priced tickets of an order type the club's mapping does not group), ticket type and price category: tickets sold (paid orders), revenue and average price in NOK incl. VAT, and cancelled, refunded, pending and other tickets (the club's order status groups). Season-ticket seats and distributed tickets carry no price and are left out. average_price = revenue / tickets_sold.
-- test: unique(season, product_line, ticket_type_name, price_category_name)
-- test: not_null(product_line, tickets_sold, revenue)
-- test: accepted_values(product_line: ticket, season_ticket, unmapped)

with

tickets as (

    select * from marts.fct_tickets

),

ticket_kinds as (

    select * from intermediate.int_ticket_kinds
    where product_line is not null

),

priced_tickets as (

    select
        ticket_kinds.season,
        ticket_kinds.product_line,
        tickets.ticket_type_name,
        tickets.price_category_name,
        ticket_kinds.status_group,
        coalesce(tickets.ticket_price, 0) as amount,

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
        count(*) filter (where status_group = 'paid') as tickets_sold,
        coalesce(sum(amount) filter (where status_group = 'paid'), 0) as revenue,
        avg(amount) filter (where status_group = 'paid') as average_price,
        count(*) filter (where status_group = 'cancelled') as tickets_cancelled,
        count(*) filter (where status_group = 'refunded') as tickets_refunded,
        count(*) filter (where status_group = 'pending') as tickets_pending,
        count(*) filter (where status_group = 'other') as tickets_other,

    from priced_tickets
    group by all

)

select * from final
