-- materialized: table
-- unique_key: line_id
-- description: One row per line of money the club took or handed back: a sold ticket (single or season ticket; season-ticket seats and distributed tickets carry no price) or a merchandise order line, with its season, product line, channel, order and status. Tickets belong to their match's season; merchandise to the season running when it was ordered (int_seasons). Amounts in NOK incl. VAT.
-- test: unique(line_id)
-- test: not_null(line_id, product_line, channel, amount)
-- test: accepted_values(product_line: ticket, season_ticket, merchandise)

with

tickets as (

    select * from marts.fct_tickets

),

ticket_kinds as (

    select * from intermediate.int_ticket_kinds

),

merchandise_lines as (

    select * from marts.fct_merchandise_lines

),

seasons as (

    select * from intermediate.int_seasons

),

ticket_lines as (

    select
        'ticket:' || tickets.ticket_id as line_id,
        case ticket_kinds.ticket_kind when 'season_ticket' then 'season_ticket' else 'ticket' end as product_line,
        ticket_kinds.season,
        coalesce(tickets.order_channel, 'unknown') as channel,
        tickets.sale_order_id as order_id,
        tickets.ordered_at,
        tickets.order_status_name,
        tickets.ticket_price as amount,
        tickets.ticket_vat as vat_amount,

    from tickets
    inner join ticket_kinds
        on ticket_kinds.ticket_id = tickets.ticket_id
    where ticket_kinds.ticket_kind in ('single', 'season_ticket')

),

merchandise as (

    select
        'merchandise:' || cast(merchandise_lines.merchandise_line_id as varchar) as line_id,
        'merchandise' as product_line,
        seasons.season,
        coalesce(merchandise_lines.sale_channel, 'unknown') as channel,
        merchandise_lines.order_id,
        merchandise_lines.ordered_at,
        merchandise_lines.order_status_name,
        merchandise_lines.line_revenue as amount,
        merchandise_lines.vat_amount,

    from merchandise_lines
    left join seasons
        on seasons.starts_at <= merchandise_lines.ordered_at
        and (seasons.ends_at is null or merchandise_lines.ordered_at < seasons.ends_at)

),

final as (

    select * from ticket_lines
    union all
    select * from merchandise

)

select * from final
