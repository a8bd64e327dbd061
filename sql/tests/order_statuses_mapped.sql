-- description: Every order status of tickets and merchandise (id and name) is in one of the club's groups (order_status_groups.csv: paid, cancelled, refunded, pending, other). The documents list no status, so each is the club's word; an unmapped one counts as other, never as revenue, until it is mapped. marts.club_codes lists every code with its state.
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
    where mapping = 'order_status'
        and state <> 'mapped'
    order by source, code_id, code_name

)

select * from final
