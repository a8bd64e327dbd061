-- description: One row per season ticket: a ticket sold on a season-ticket sale (the virtual match of just_seasonticket_sales, order type SeasonTicket), with its season, buyer and holder accounts, price, and the seats it gave on the season's real matches (tickets carrying the same id_season_ticket). is_active: its order is Completed. Seats attended count issued seats scanned at the match.
-- test: unique(ticket_id)
-- test: not_null(ticket_id, season, is_active, seats_issued, seats_attended)
-- test[warn]: unique(season_ticket_id)
-- test[warn]: not_null(season_ticket_id)

with

tickets as (

    select * from marts.fct_tickets

),

ticket_kinds as (

    select * from intermediate.int_ticket_kinds

),

sales as (

    select
        tickets.*,
        ticket_kinds.season,

    from tickets
    inner join ticket_kinds
        on ticket_kinds.ticket_id = tickets.ticket_id
    where ticket_kinds.ticket_kind = 'season_ticket'

),

seats as (

    select
        ticket_kinds.season_ticket_id,
        count(*) as seats_issued,
        count(*) filter (where ticket_kinds.is_counted_attendance) as seats_attended,

    from ticket_kinds
    where ticket_kinds.ticket_kind = 'season_ticket_seat'
        and ticket_kinds.is_issued
    group by ticket_kinds.season_ticket_id

),

final as (

    select
        sales.ticket_id,
        sales.season_ticket_id,
        sales.season,
        sales.match_id as sale_match_id,
        sales.sale_order_id,
        sales.buyer_user_id,
        sales.holder_user_id,
        sales.ordered_at,
        sales.order_channel,
        sales.order_status_name,
        sales.is_sold as is_active,
        sales.ticket_type_name,
        sales.price_category_name,
        sales.ticket_price,
        coalesce(seats.seats_issued, 0) as seats_issued,
        coalesce(seats.seats_attended, 0) as seats_attended,

    from sales
    left join seats
        on seats.season_ticket_id = sales.season_ticket_id

)

select * from final
