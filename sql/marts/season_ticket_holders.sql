-- description: One row per ticket season: active season tickets (paid orders) and their revenue, the fans holding one (by the holder account, a fan's accounts together), how many of them held one the season before (renewing) or not (new), how many hold one again the next season, and how holders used their seats. renewal_rate = renewed_fans / holder_fans, null for the latest season; seat_attendance_rate = seats attended / seats of finished matches.
-- test: unique(season)
-- test: not_null(season, season_number, season_tickets, holder_fans, new_holder_fans, seats_issued, seats_attended)

with

seasons as not materialized (

    select * from intermediate.int_seasons

),

season_tickets as not materialized (

    select * from marts.fct_season_tickets
    where is_active

),

ticket_kinds as (

    select * from intermediate.int_ticket_kinds

),

matches as (

    select * from marts.dim_match

),

ticketing_users as (

    select * from intermediate.int_ticketing_user_fans

),

season_totals as (

    select
        season,
        count(*) as season_tickets,
        sum(ticket_price) as season_ticket_revenue,

    from season_tickets
    group by season

),

holders as (

    select distinct
        season_tickets.season,
        ticketing_users.fan_id,

    from season_tickets
    inner join ticketing_users
        on ticketing_users.user_id = season_tickets.holder_user_id

),

holder_flags as (

    select
        holders.season,
        holders.fan_id,
        previous_holders.fan_id is not null as held_previous_season,
        next_holders.fan_id is not null as holds_next_season,

    from holders
    inner join seasons
        on seasons.season = holders.season
    left join holders as previous_holders
        on previous_holders.season = seasons.previous_season
        and previous_holders.fan_id = holders.fan_id
    left join holders as next_holders
        on next_holders.season = seasons.next_season
        and next_holders.fan_id = holders.fan_id

),

holder_counts as (

    select
        season,
        count(*) as holder_fans,
        count(*) filter (where not held_previous_season) as new_holder_fans,
        count(*) filter (where holds_next_season) as renewed_fans,

    from holder_flags
    group by season

),

-- seats of played matches only: a seat of a match still to come can be neither used nor missed
seat_use as (

    select
        ticket_kinds.season,
        count(*) as seats_issued,
        count(*) filter (where ticket_kinds.is_counted_attendance) as seats_attended,

    from ticket_kinds
    inner join matches
        on matches.match_id = ticket_kinds.match_id
    where ticket_kinds.is_season_ticket_seat
        and ticket_kinds.is_issued
        and matches.is_finished
    group by ticket_kinds.season

),

final as (

    select
        seasons.season,
        seasons.season_number,
        seasons.next_season,
        coalesce(season_totals.season_tickets, 0) as season_tickets,
        coalesce(season_totals.season_ticket_revenue, 0) as season_ticket_revenue,
        coalesce(holder_counts.holder_fans, 0) as holder_fans,
        coalesce(holder_counts.new_holder_fans, 0) as new_holder_fans,
        coalesce(holder_counts.holder_fans, 0) - coalesce(holder_counts.new_holder_fans, 0) as renewing_fans,
        case when seasons.next_season is not null then coalesce(holder_counts.renewed_fans, 0) end as renewed_fans,
        case
            when seasons.next_season is not null and holder_counts.holder_fans > 0
                then holder_counts.renewed_fans / holder_counts.holder_fans
        end as renewal_rate,
        coalesce(seat_use.seats_issued, 0) as seats_issued,
        coalesce(seat_use.seats_attended, 0) as seats_attended,
        case when seat_use.seats_issued > 0 then seat_use.seats_attended / seat_use.seats_issued end as seat_attendance_rate,

    from seasons
    left join season_totals
        on season_totals.season = seasons.season
    left join holder_counts
        on holder_counts.season = seasons.season
    left join seat_use
        on seat_use.season = seasons.season

)

select * from final
