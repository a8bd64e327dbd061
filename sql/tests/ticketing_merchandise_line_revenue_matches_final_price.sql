-- description: Every merchandise line's price_subtotal + vat equals its order_final_price (docs/decisions.md), so line revenue is the price the fan paid.
-- severity: error

with

merchandise_lines as (

    select * from marts.fct_merchandise_lines

),

final as (

    select
        merchandise_line_id,
        order_id,
        price_subtotal,
        vat_amount,
        line_revenue,
        final_price,

    from merchandise_lines
    where line_revenue is distinct from final_price

)

select * from final
