-- materialized: incremental
-- unique_key: ticket_id
-- full_rebuild_on: marts.dim_match
-- lineage_columns: _extracted_at, changed_at
-- description: One row per ticket with what kind of ticket it is, its product line, status group and whether it counts as attendance, from the documented fields and the club's mappings. ticket_kind: season_ticket (a ticket of an order type the club groups as season_ticket, SeasonTicket = 12 by default, with a price: one season ticket sold, whatever match it is sold on), season_ticket_seat (a ticket without a price that carries an id_season_ticket, or of a season-ticket order type: a holder's seat), distributed (no order type, as the document says of distributed tickets), single (any other ticket). product_line is what revenue counts it as: season_ticket, ticket, or unmapped for a priced ticket whose order type and text the club's mapping does not group; null for a ticket that is no sale (a seat or a distributed ticket without a price). status_group is the club's group of the order status, other where the mapping does not know it. season: a season ticket belongs to the season of its seats (the most common one), with no seats to its own; any other ticket to its match's. A season ticket sold with a price on a real match is also that match's seat, so attendance counts issued tickets of every real (not season-ticket-sale-only) match. Incremental: a build computes the tickets loaded since its last one (_extracted_at, fct_tickets' high-water mark) and every ticket of a season ticket one of them belongs or belonged to, and stamps them changed_at (int_revenue_lines follows it); a changed dim_match builds it in full.
-- test: unique(ticket_id)
-- test: not_null(ticket_id, match_id, ticket_kind, status_group, is_season_ticket_seat, is_issued, is_real_match, is_counted_attendance)
-- test: accepted_values(ticket_kind: single, season_ticket, season_ticket_seat, distributed)
-- test: accepted_values(product_line: ticket, season_ticket, unmapped)
-- test: accepted_values(status_group: paid, cancelled, refunded, pending, other)

with

-- The tickets loaded since this model's last build; the runner drops this condition on a first build.
loaded as (

    select ticket_id, season_ticket_id from marts.fct_tickets
    where _extracted_at > (select greatest(max(_extracted_at), '-infinity'::timestamptz) from intermediate.int_ticket_kinds)

),

-- What a build computes: the loaded tickets and every ticket of a season ticket one of them
-- belongs to, or belonged to (a season ticket's season is where its seats are).
tickets as (

    select * from marts.fct_tickets
    where ticket_id in (select ticket_id from loaded)
        or season_ticket_id in (select season_ticket_id from loaded)
        or season_ticket_id in (select season_ticket_id from intermediate.int_ticket_kinds where ticket_id in (select ticket_id from loaded))

),

matches as (

    select * from marts.dim_match

),

kinds as (

    select
        tickets.ticket_id,
        tickets.match_id,
        matches.season as match_season,
        tickets.season_ticket_id,
        case
            when tickets.order_type_id is null then 'distributed'
            when tickets.order_product_line = 'season_ticket' and tickets.ticket_price > 0 then 'season_ticket'
            when coalesce(tickets.ticket_price, 0) = 0
                and (tickets.season_ticket_id is not null or tickets.order_product_line = 'season_ticket')
                then 'season_ticket_seat'
            else 'single'
        end as ticket_kind,
        tickets.order_product_line,
        coalesce(tickets.ticket_price, 0) <> 0 as has_price,
        coalesce(tickets.order_status_group, 'other') as status_group,
        tickets.is_sold or tickets.is_distributed as is_issued,
        not matches.is_season_ticket_sale as is_real_match,
        tickets.is_attended,
        tickets._extracted_at,

    from tickets
    inner join matches
        on matches.match_id = tickets.match_id

),

-- the season a season ticket's seats are in: where the seats are, not where it was sold
seat_seasons as (

    select
        season_ticket_id,
        mode(match_season) as season,

    from kinds
    where ticket_kind = 'season_ticket_seat'
        and season_ticket_id is not null
    group by season_ticket_id

),

final as (

    select
        kinds.ticket_id,
        kinds.match_id,
        case kinds.ticket_kind
            when 'season_ticket' then coalesce(seat_seasons.season, kinds.match_season)
            else kinds.match_season
        end as season,
        kinds.season_ticket_id,
        kinds.ticket_kind,
        case
            when kinds.ticket_kind = 'season_ticket' then 'season_ticket'
            when kinds.ticket_kind = 'single' and kinds.order_product_line = 'ticket' then 'ticket'
            when kinds.ticket_kind = 'single' then 'unmapped'
            -- a seat or a distributed ticket is no sale, unless it carries a price after all
            when kinds.has_price then 'unmapped'
        end as product_line,
        kinds.status_group,
        -- a holder's seat at a real match: a seat, or a season ticket sold on a real match
        kinds.ticket_kind = 'season_ticket_seat'
            or (kinds.ticket_kind = 'season_ticket' and kinds.is_real_match) as is_season_ticket_seat,
        kinds.is_issued,
        kinds.is_real_match,
        -- a season-ticket sale is not played, and a cancelled or refunded ticket is no seat
        kinds.is_issued
            and kinds.is_attended
            and kinds.is_real_match as is_counted_attendance,
        kinds._extracted_at,
        now() as changed_at,

    -- on the key alone (one row per season ticket id; only a season ticket reads its season): a
    -- condition on the ticket beside the key kept DuckDB from joining by hash
    from kinds
    left join seat_seasons
        on seat_seasons.season_ticket_id = kinds.season_ticket_id

)

select * from final
