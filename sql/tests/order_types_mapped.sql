-- description: Every order type of a ticket (order_type and order_type_txt) is in one of the club's product lines (order_type_groups.csv: ticket, season_ticket). A priced ticket of an unmapped order type counts as revenue of product line unmapped, and an unmapped season-ticket type sells no season ticket, until it is mapped. marts.club_codes lists every code with its state.
-- severity: error
-- show: 100

with

club_codes as (

    select * from marts.club_codes

),

final as (

    select
        source,
        code_id,
        code_name,
        state,
        records,

    from club_codes
    where mapping = 'order_type'
        and state <> 'mapped'
    order by source, code_id, code_name

)

select * from final
