-- materialized: incremental
-- unique_key: line_id
-- incremental_delete: (resource = 'tickets' and line_id in (select 'ticket:' || ticket_id from intermediate.int_ticket_kinds where product_line is null and changed_at > coalesce(macros.model_built_at('intermediate.int_revenue_lines'), '-infinity'))) or (resource = 'merchandise' and line_id not in (select 'merchandise:' || cast(merchandise_line_id as varchar) from marts.fct_merchandise_lines))
-- full_rebuild_on: intermediate.int_seasons, intermediate.int_club_sales_channels
-- description: One row per line of money the club took, may take or handed back: every ticket sold (a single ticket or a season ticket; season-ticket seats and distributed tickets carry no price and are no line, unless they carry one after all) and every merchandise order line, with its season, product line (ticket, season_ticket, merchandise, or unmapped for a priced ticket of an order type the club's mapping does not group), channel, order and the club's status group (paid, cancelled, refunded, pending, or other where the mapping does not know the status). Tickets belong to their season (int_ticket_kinds); merchandise to the season running when it was ordered (int_seasons). channel_name is the club's one name for the channel across tickets and merchandise (int_club_sales_channels; the channel as spelt where the club has none); season_day the days from the season's first match to the order (negative before it: pre-season sales). Amounts in NOK incl. VAT. Incremental: a build computes the ticket lines of the tickets int_ticket_kinds computed since its last build (changed_at), and the merchandise lines when fct_merchandise_lines was built since; changed seasons or channels build it in full.
-- test: unique(line_id)
-- test: not_null(line_id, resource, product_line, channel, channel_name, amount, status_group)
-- test: accepted_values(product_line: ticket, season_ticket, merchandise, unmapped)
-- test: accepted_values(status_group: paid, cancelled, refunded, pending, other)

with

tickets as (

    select * from marts.fct_tickets

),

-- The tickets computed since this model's last build; every ticket in its first build and
-- --full-refresh (which drop this condition).
ticket_kinds as (

    select * from intermediate.int_ticket_kinds
    where changed_at > coalesce(macros.model_built_at('intermediate.int_revenue_lines'), '-infinity')
        or not exists (select 1 from intermediate.int_revenue_lines)

),

-- The merchandise lines once fct_merchandise_lines was built since this model's last build (a
-- merge leaves the unchanged ones as they are); all of them in its first build.
merchandise_lines as (

    select * from marts.fct_merchandise_lines
    where macros.model_built_at('marts.fct_merchandise_lines') > coalesce(macros.model_built_at('intermediate.int_revenue_lines'), '-infinity')
        or not exists (select 1 from intermediate.int_revenue_lines)

),

seasons as not materialized (

    select * from intermediate.int_seasons

),

sales_channels as (

    select * from intermediate.int_club_sales_channels

),

ticket_lines as (

    select
        'ticket:' || tickets.ticket_id as line_id,
        ticket_kinds.product_line,
        ticket_kinds.season,
        coalesce(tickets.order_channel, 'unknown') as channel,
        tickets.sale_order_id as order_id,
        tickets.ordered_at,
        tickets.order_status_name,
        ticket_kinds.status_group,
        coalesce(tickets.ticket_price, 0) as amount,
        tickets.ticket_vat as vat_amount,

    from tickets
    inner join ticket_kinds
        on ticket_kinds.ticket_id = tickets.ticket_id
    where ticket_kinds.product_line is not null

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
        merchandise_lines.status_group,
        coalesce(merchandise_lines.line_revenue, 0) as amount,
        merchandise_lines.vat_amount,

    from merchandise_lines
    left join seasons
        on seasons.starts_at <= merchandise_lines.ordered_at
        and (seasons.ends_at is null or merchandise_lines.ordered_at < seasons.ends_at)

),

lines as (

    select 'tickets' as resource, * from ticket_lines
    union all
    select 'merchandise' as resource, * from merchandise

),

-- one name per channel across tickets and merchandise, and the day of its season a line falls on
final as (

    select
        lines.*,
        coalesce(sales_channels.display_name, lines.channel) as channel_name,
        -- days between the two dates, as date_diff('day') counts them on timestamps, at a tenth of its cost
        date_diff('day', seasons.starts_at::date, lines.ordered_at::date) as season_day,

    from lines
    left join sales_channels
        on sales_channels.resource = lines.resource
        and sales_channels.channel = lines.channel
    left join seasons
        on seasons.season = lines.season

)

select * from final
