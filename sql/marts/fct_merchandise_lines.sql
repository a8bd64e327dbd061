-- materialized: table
-- unique_key: merchandise_line_id
-- description: One row per sold merchandise item (order line). Amounts in NOK incl. VAT unless named subtotal; line_revenue = price_subtotal + vat_amount.
-- test: unique(merchandise_line_id)
-- test: not_null(merchandise_line_id, order_id, line_revenue)
-- test[warn]: accepted_values(order_status_name: Completed, Cancelled, Refunded)
-- test[warn]: relationships(user_id -> staging.stg_ticketing__users.user_id)

with

merchandise as (

    select * from staging.stg_ticketing__merchandise

),

final as (

    select
        merchandise_line_id,
        order_id,
        order_no,
        user_id,
        ordered_at,
        order_status_name,
        order_status_name = 'Completed' as is_completed,
        payment_type_name,
        sale_channel,
        is_in_app,
        product_id,
        product_name,
        product_size,
        base_price,
        additional_price,
        discount_amount,
        price_subtotal,
        vat_amount,
        vat_percentage,
        price_subtotal + vat_amount as line_revenue,
        final_price,
        refunded_amount,
        redeem_status_name,
        updated_at,

    from merchandise

)

select * from final
