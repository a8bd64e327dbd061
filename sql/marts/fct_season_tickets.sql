-- description: One row per season ticket sold: a ticket with a price of an order type the club groups as season_ticket (SeasonTicket = 12 by default), whatever match it is sold on (a season-ticket sale of just_seasonticket_sales or a real match), with its season (that of its seats; with none, its own), buyer and holder accounts, price, status group, and the seats it gave on real matches: the tickets carrying its id_season_ticket, itself included when sold on a real match. is_active: its order is paid. Seats attended count issued seats scanned at the match. An id_season_ticket names one holder's season ticket (docs/decisions.md); tests/season_ticket_ids_name_one_season_ticket says when the data contradicts that.
-- test: unique(ticket_id)
-- test: not_null(ticket_id, season, is_active, status_group, seats_issued, seats_attended)
-- test[warn]: not_null(season_ticket_id)

with

tickets as (

    select * from marts.fct_tickets

),

ticket_kinds as not materialized (

    select * from intermediate.int_ticket_kinds

),

sales as (

    select
        tickets.*,
        ticket_kinds.season,
        ticket_kinds.status_group,

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
    where ticket_kinds.is_season_ticket_seat
        and ticket_kinds.is_issued
        and ticket_kinds.season_ticket_id is not null
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
        sales.status_group,
        sales.status_group = 'paid' as is_active,
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
