-- materialized: table
-- description: One row per ticket season: fans who bought tickets in it (sold tickets, by buyer), how many of them bought again in the next season, and how many bought for the first time. retention_rate = retained_fans / buying_fans; null for the latest season, which has no next one yet.
-- test: unique(season)
-- test: not_null(season, season_number, buying_fans, new_fans)

with

tickets as (

    select * from marts.fct_tickets

),

matches as (

    select * from marts.dim_match

),

ticketing_users as (

    select * from intermediate.int_ticketing_user_fans

),

-- seasons in the order they are played (the season-ticket sale, dated before the season
-- opens, belongs to its season); the next season is the next one with any match
seasons as not materialized (

    select * from intermediate.int_seasons

),

-- each season's buying accounts first (a few hundred thousand of the 890k sold tickets),
-- then their fans
season_accounts as (

    select distinct
        seasons.season_number,
        tickets.buyer_user_id,

    from tickets
    inner join matches
        on matches.match_id = tickets.match_id
    inner join seasons
        on seasons.season = matches.season
    where tickets.is_sold

),

season_buyers as (

    select distinct
        season_accounts.season_number,
        ticketing_users.fan_id,

    from season_accounts
    inner join ticketing_users
        on ticketing_users.user_id = season_accounts.buyer_user_id

),

first_seasons as (

    select
        fan_id,
        min(season_number) as first_season_number,

    from season_buyers
    group by fan_id

),

season_counts as (

    select
        season_buyers.season_number,
        count(*) as buying_fans,
        count(next_season_buyers.fan_id) as retained_fans,
        count(*) filter (where first_seasons.first_season_number = season_buyers.season_number) as new_fans,

    from season_buyers
    left join season_buyers as next_season_buyers
        on next_season_buyers.fan_id = season_buyers.fan_id
        and next_season_buyers.season_number = season_buyers.season_number + 1
    inner join first_seasons
        on first_seasons.fan_id = season_buyers.fan_id
    group by season_buyers.season_number

),

final as (

    select
        seasons.season,
        seasons.season_number,
        next_seasons.season as next_season,
        coalesce(season_counts.buying_fans, 0) as buying_fans,
        coalesce(season_counts.new_fans, 0) as new_fans,
        case when next_seasons.season is not null then coalesce(season_counts.retained_fans, 0) end as retained_fans,
        case when next_seasons.season is not null then coalesce(season_counts.retained_fans, 0) / nullif(season_counts.buying_fans, 0) end as retention_rate,

    from seasons
    left join seasons as next_seasons
        on next_seasons.season_number = seasons.season_number + 1
    left join season_counts
        on season_counts.season_number = seasons.season_number

)

select * from final
