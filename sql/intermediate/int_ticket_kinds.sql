-- materialized: table
-- unique_key: ticket_id
-- description: One row per ticket with what kind of ticket it is and whether it counts as attendance. ticket_kind: season_ticket (sold on a season-ticket sale, the virtual match of just_seasonticket_sales), season_ticket_seat (a holder's ticket for a real match, carrying id_season_ticket), distributed (free, no order type), single (any other ticket for one match). Attendance counts issued tickets (completed orders) of real matches only.
-- test: unique(ticket_id)
-- test: not_null(ticket_id, match_id, ticket_kind, is_issued, is_real_match, is_counted_attendance)
-- test: accepted_values(ticket_kind: single, season_ticket, season_ticket_seat, distributed)

with

tickets as (

    select * from marts.fct_tickets

),

matches as (

    select * from marts.dim_match

),

final as (

    select
        tickets.ticket_id,
        tickets.match_id,
        matches.season,
        tickets.season_ticket_id,
        case
            when tickets.order_type_id is null then 'distributed'
            when matches.is_season_ticket_sale then 'season_ticket'
            when tickets.season_ticket_id is not null then 'season_ticket_seat'
            else 'single'
        end as ticket_kind,
        tickets.is_sold or tickets.is_distributed as is_issued,
        not matches.is_season_ticket_sale as is_real_match,
        -- a season-ticket sale is not played, and a cancelled or refunded ticket is no seat
        (tickets.is_sold or tickets.is_distributed)
            and tickets.is_attended
            and not matches.is_season_ticket_sale as is_counted_attendance,

    from tickets
    inner join matches
        on matches.match_id = tickets.match_id

)

select * from final
