-- description: An id_season_ticket names one holder's season ticket, not a product every holder shares (the documents do not say; docs/decisions.md): each id is carried by at most one priced season ticket, so its seats are that holder's. A row here is an id several priced season tickets carry, whose seats fanlake cannot tell apart: seats issued and attended per season ticket are then wrong.
-- severity: error
-- show: 20

with

season_tickets as (

    select * from marts.fct_season_tickets
    where season_ticket_id is not null

),

final as (

    select
        season_ticket_id,
        count(*) as priced_season_tickets,

    from season_tickets
    group by season_ticket_id
    having count(*) > 1

)

select * from final
