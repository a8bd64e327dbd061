-- description: Books that balance: per season, the season tickets of fct_season_tickets are the priced tickets of a season-ticket order type (the club's order_type_groups) in fct_tickets, and season_ticket_holders counts the paid ones. A row here is a season a report shows more or fewer season tickets for than were sold.
-- severity: error
-- show: 20

with

tickets as (

    select * from marts.fct_tickets

),

ticket_kinds as (

    select * from intermediate.int_ticket_kinds

),

season_tickets as (

    select * from marts.fct_season_tickets

),

holders as (

    select * from marts.season_ticket_holders

),

sold as (

    select
        ticket_kinds.season,
        count(*) as sold,
        count(*) filter (where ticket_kinds.status_group = 'paid') as paid,

    from tickets
    inner join ticket_kinds
        on ticket_kinds.ticket_id = tickets.ticket_id
    where tickets.order_product_line = 'season_ticket'
        and tickets.ticket_price > 0
    group by all

),

in_mart as (

    select
        season,
        count(*) as sold,
        count(*) filter (where is_active) as paid,

    from season_tickets
    group by all

),

final as (

    select
        coalesce(sold.season, in_mart.season, holders.season) as season,
        coalesce(sold.sold, 0) as priced_season_ticket_tickets,
        coalesce(in_mart.sold, 0) as fct_season_tickets,
        coalesce(sold.paid, 0) as paid_season_ticket_tickets,
        coalesce(in_mart.paid, 0) as fct_season_tickets_active,
        coalesce(holders.season_tickets, 0) as season_ticket_holders_season_tickets,

    from sold
    full outer join in_mart
        on in_mart.season is not distinct from sold.season
    full outer join holders
        on holders.season is not distinct from coalesce(sold.season, in_mart.season)

)

select * from final
where priced_season_ticket_tickets <> fct_season_tickets
    or paid_season_ticket_tickets <> fct_season_tickets_active
    or paid_season_ticket_tickets <> season_ticket_holders_season_tickets
