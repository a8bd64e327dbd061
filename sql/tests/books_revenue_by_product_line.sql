-- description: Books that balance: per season and product line, revenue_monthly holds exactly what its lines add up to: its revenue the paid lines of int_revenue_lines, and revenue plus cancelled, refunded, pending and other amounts every line. A row here is revenue a report shows that its lines do not.
-- severity: error
-- show: 20

with

revenue_lines as (

    select * from intermediate.int_revenue_lines

),

revenue_monthly as (

    select * from marts.revenue_monthly

),

from_lines as (

    select
        season,
        product_line,
        coalesce(sum(amount) filter (where status_group = 'paid'), 0) as paid,
        coalesce(sum(amount), 0) as all_lines,

    from revenue_lines
    group by all

),

from_mart as (

    select
        season,
        product_line,
        sum(revenue) as paid,
        sum(revenue + cancelled_amount + refunded_amount + pending_amount + other_amount) as all_lines,

    from revenue_monthly
    group by all

),

final as (

    select
        coalesce(from_lines.season, from_mart.season) as season,
        coalesce(from_lines.product_line, from_mart.product_line) as product_line,
        from_lines.paid as lines_paid,
        from_mart.paid as revenue_monthly_paid,
        from_lines.all_lines as lines_all,
        from_mart.all_lines as revenue_monthly_all,

    from from_lines
    full outer join from_mart
        on from_mart.season is not distinct from from_lines.season
        and from_mart.product_line = from_lines.product_line
    where from_lines.paid is distinct from from_mart.paid
        or from_lines.all_lines is distinct from from_mart.all_lines

)

select * from final
