-- description: A ticket's subtotal plus VAT equals its price.
-- severity: warn

with

tickets as (

    select * from marts.fct_tickets

),

final as (

    select
        ticket_id,
        ticket_subtotal,
        ticket_vat,
        ticket_price,

    from tickets
    where ticket_subtotal + ticket_vat is distinct from ticket_price

)

select * from final
