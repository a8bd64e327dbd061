-- description: One row per match: tickets sold, distributed and attended, no-show rate, and ticket revenue (sum of ticket_price, NOK incl. VAT) in total, by channel and by order type.
-- test: unique(match_id)
-- test: not_null(match_id, tickets_sold, tickets_distributed, ticket_revenue)
-- test: relationships(match_id -> marts.dim_match.match_id)

with

matches as (

    select * from marts.dim_match

),

tickets as not materialized (

    select * from marts.fct_tickets

),

ticket_counts as (

    select
        match_id,
        count(*) as tickets_total,
        count(*) filter (where is_sold) as tickets_sold,
        count(*) filter (where is_distributed) as tickets_distributed,
        count(*) filter (where order_status_group = 'cancelled') as tickets_cancelled,
        count(*) filter (where order_status_group = 'refunded') as tickets_refunded,
        count(*) filter (where (is_sold or is_distributed) and is_redeemed) as tickets_redeemed,
        count(*) filter (where (is_sold or is_distributed) and is_attended) as tickets_attended,
        coalesce(sum(ticket_price) filter (where is_sold), 0) as ticket_revenue,
        coalesce(sum(ticket_vat) filter (where is_sold), 0) as ticket_vat,

    from tickets
    group by match_id

),

-- order_price repeats the order's total on each of its tickets, so revenue sums ticket_price.
sold_tickets as (

    select
        match_id,
        coalesce(order_channel, 'unknown') as order_channel,
        coalesce(order_type_name, 'unknown') as order_type_name,
        ticket_price,

    from tickets
    where is_sold

),

channel_revenue as (

    select
        match_id,
        order_channel,
        sum(ticket_price) as revenue,

    from sold_tickets
    group by match_id, order_channel

),

order_type_revenue as (

    select
        match_id,
        order_type_name,
        sum(ticket_price) as revenue,

    from sold_tickets
    group by match_id, order_type_name

),

revenue_by_channel as (

    select
        match_id,
        map_from_entries(list((order_channel, revenue) order by order_channel)) as ticket_revenue_by_channel,

    from channel_revenue
    group by match_id

),

revenue_by_order_type as (

    select
        match_id,
        map_from_entries(list((order_type_name, revenue) order by order_type_name)) as ticket_revenue_by_order_type,

    from order_type_revenue
    group by match_id

),

final as (

    select
        matches.match_id,
        matches.season,
        matches.league_name,
        matches.home_team_name,
        matches.away_team_name,
        matches.kickoff_at,
        matches.is_finished,
        matches.is_season_ticket_sale,
        coalesce(ticket_counts.tickets_total, 0) as tickets_total,
        coalesce(ticket_counts.tickets_sold, 0) as tickets_sold,
        coalesce(ticket_counts.tickets_distributed, 0) as tickets_distributed,
        coalesce(ticket_counts.tickets_sold, 0)
            + coalesce(ticket_counts.tickets_distributed, 0) as tickets_issued,
        coalesce(ticket_counts.tickets_cancelled, 0) as tickets_cancelled,
        coalesce(ticket_counts.tickets_refunded, 0) as tickets_refunded,
        coalesce(ticket_counts.tickets_redeemed, 0) as tickets_redeemed,
        coalesce(ticket_counts.tickets_attended, 0) as tickets_attended,
        -- Only a played match has no-shows; a season-ticket sale is not played.
        case
            when matches.is_finished
                and not matches.is_season_ticket_sale
                and ticket_counts.tickets_sold + ticket_counts.tickets_distributed > 0
                then 1 - ticket_counts.tickets_attended
                    / (ticket_counts.tickets_sold + ticket_counts.tickets_distributed)
        end as no_show_rate,
        coalesce(ticket_counts.ticket_revenue, 0) as ticket_revenue,
        coalesce(ticket_counts.ticket_vat, 0) as ticket_vat,
        coalesce(revenue_by_channel.ticket_revenue_by_channel, map()) as ticket_revenue_by_channel,
        coalesce(revenue_by_order_type.ticket_revenue_by_order_type, map()) as ticket_revenue_by_order_type,

    from matches
    left join ticket_counts
        on matches.match_id = ticket_counts.match_id
    left join revenue_by_channel
        on matches.match_id = revenue_by_channel.match_id
    left join revenue_by_order_type
        on matches.match_id = revenue_by_order_type.match_id

)

select * from final
