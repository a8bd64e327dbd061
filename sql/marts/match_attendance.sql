-- description: One row per real match (the season-ticket sale is not one): tickets issued (sold or distributed, completed orders) and attended, split into single tickets, season-ticket seats (a season ticket sold with a price on this match included: it is its holder's seat) and distributed tickets, and the no-show rates of played matches. no_show_rate = 1 - tickets_attended / tickets_issued, null unless the match is finished and issued a ticket.
-- test: unique(match_id)
-- test: not_null(match_id, tickets_issued, tickets_attended, season_ticket_seats, season_ticket_seats_attended)
-- test: relationships(match_id -> marts.dim_match.match_id)

with

matches as (

    select * from marts.dim_match
    where not is_season_ticket_sale

),

ticket_kinds as (

    select * from intermediate.int_ticket_kinds
    where is_issued

),

ticket_counts as (

    select
        match_id,
        count(*) as tickets_issued,
        count(*) filter (where is_counted_attendance) as tickets_attended,
        count(*) filter (where ticket_kind = 'single') as single_tickets,
        count(*) filter (where ticket_kind = 'single' and is_counted_attendance) as single_tickets_attended,
        count(*) filter (where is_season_ticket_seat) as season_ticket_seats,
        count(*) filter (where is_season_ticket_seat and is_counted_attendance) as season_ticket_seats_attended,
        count(*) filter (where ticket_kind = 'distributed') as distributed_tickets,
        count(*) filter (where ticket_kind = 'distributed' and is_counted_attendance) as distributed_tickets_attended,

    from ticket_kinds
    group by match_id

),

counted as (

    select
        matches.match_id,
        matches.season,
        matches.league_name,
        matches.home_team_name,
        matches.away_team_name,
        matches.kickoff_at,
        matches.is_finished,
        coalesce(ticket_counts.tickets_issued, 0) as tickets_issued,
        coalesce(ticket_counts.tickets_attended, 0) as tickets_attended,
        coalesce(ticket_counts.single_tickets, 0) as single_tickets,
        coalesce(ticket_counts.single_tickets_attended, 0) as single_tickets_attended,
        coalesce(ticket_counts.season_ticket_seats, 0) as season_ticket_seats,
        coalesce(ticket_counts.season_ticket_seats_attended, 0) as season_ticket_seats_attended,
        coalesce(ticket_counts.distributed_tickets, 0) as distributed_tickets,
        coalesce(ticket_counts.distributed_tickets_attended, 0) as distributed_tickets_attended,

    from matches
    left join ticket_counts
        on ticket_counts.match_id = matches.match_id

),

final as (

    select
        *,
        -- only a played match has no-shows
        case when is_finished and tickets_issued > 0 then 1 - tickets_attended / tickets_issued end as no_show_rate,
        case when is_finished and season_ticket_seats > 0 then 1 - season_ticket_seats_attended / season_ticket_seats end as season_ticket_no_show_rate,

    from counted

)

select * from final
