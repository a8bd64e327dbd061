-- materialized: table
-- description: One row per season, day of the season, product line and channel (the club's one name for it across tickets and merchandise) with paid revenue (NOK incl. VAT; the club's order status groups) and items sold: season_day counts days from the season's first match (int_seasons.starts_at) to the order, negative for sales before it, so two seasons compare like for like, to the same day of each (the revenue report's season to date). Lines of int_revenue_lines without a season (merchandise before the first season) are left out.
-- test: unique(season, season_day, product_line, channel_name)
-- test: not_null(season, season_day, product_line, channel_name, revenue, items_sold)

with

revenue_lines as (

    select * from intermediate.int_revenue_lines
    where season is not null

),

final as (

    select
        season,
        season_day,
        product_line,
        channel_name,
        coalesce(sum(amount) filter (where status_group = 'paid'), 0) as revenue,
        count(*) filter (where status_group = 'paid') as items_sold,

    from revenue_lines
    group by season, season_day, product_line, channel_name

)

select * from final
