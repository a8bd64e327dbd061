-- materialized: view
-- description: Which product line a ticket's order type is (the club's order_type_groups.csv, or the default: macros.club_order_type_groups()): each order_type id AND its text in ticket or season_ticket. The ticketing document names the types (SeasonTicket = 12, Ticket = 6); what a club sells under the others on /api/tickets is the club's to say, so they are unmapped until it does. A distributed ticket has no order type and needs no row.
-- test: unique(order_type_id, order_type_name)
-- test: not_null(order_type_id, order_type_name, product_line)
-- test: accepted_values(product_line: ticket, season_ticket)

with

groups as (

    select * from macros.club_order_type_groups()

),

final as (

    select
        cast(order_type_id as bigint) as order_type_id,
        cast(order_type_name as varchar) as order_type_name,
        lower(trim(cast(product_line as varchar))) as product_line,

    from groups

)

select * from final
