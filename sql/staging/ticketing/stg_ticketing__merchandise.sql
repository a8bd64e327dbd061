-- materialized: view
-- description: One row per sold merchandise item (order line), typed. Amounts in NOK; integer prices are whole kroner incl. VAT.
-- personal: product_configuration (free_text), redeemed_by_name (name), redeem_note (free_text)
-- personal: pickup_data (free_text), note (free_text), guest_phone_e164 (phone), recovery_email (email)
-- test: unique(merchandise_line_id)
-- test: not_null(merchandise_line_id, order_id)

with

source as (

    select * from raw.ticketing_merchandise

),

renamed as (

    select
        -- ids
        id as merchandise_line_id,
        id_order as order_id,
        order_no,
        user_id,
        id_transaction as transaction_id,
        id_external_transaction as external_transaction_id,
        payment_code,

        -- order
        try_cast(order_datetime as timestamptz) as ordered_at,
        order_type as order_type_id,
        order_type_txt as order_type_text,
        order_status as order_status_id,
        order_status_txt as order_status_name,
        id_transaction_status as transaction_status_id,
        payment_type as payment_type_id,
        payment_type_txt as payment_type_name,
        sale_channel_txt as sale_channel,
        in_app_transaction as is_in_app,
        result as transaction_result,
        try_cast(order_amount as decimal(12, 2)) as order_amount,
        refund_detail,
        try_cast(refunded_amount as decimal(12, 2)) as refunded_amount,
        cancel_detail,

        -- product
        prod_id as product_id,
        prod_name as product_name,
        prod_size as product_size,
        prod_conf as product_configuration,
        try_cast(prod_base_price as decimal(12, 2)) as base_price,
        try_cast(prod_additional as decimal(12, 2)) as additional_price,
        try_cast(prod_disccount as decimal(12, 2)) as discount_amount,
        try_cast(prod_min_price as decimal(12, 2)) as min_price,
        try_cast(prod_max_price as decimal(12, 2)) as max_price,

        -- line amounts: price_subtotal + vat = final_price
        try_cast(price_subtotal as decimal(12, 2)) as price_subtotal,
        try_cast(vat as decimal(12, 2)) as vat_amount,
        vat_percentage,
        vat_category,
        try_cast(order_final_price as decimal(12, 2)) as final_price,

        -- fulfilment
        redeem_status as redeem_status_id,
        redeem_status_txt as redeem_status_name,
        try_cast(date_redeemed as timestamptz) as redeemed_at,
        name_redeemed as redeemed_by_name,
        from_redeemed as redeemed_from,
        from_redeemed_txt as redeemed_from_text,
        note_redeemed as redeem_note,
        pickup_data,
        notater_ticket as note,
        -- A guest checkout's phone; the user's own phone is in stg_ticketing__users.
        macros.phone_e164(phone_guest) as guest_phone_e164,
        macros.email_normalized(recovery_mail_address) as recovery_email,

        try_cast(last_update as timestamptz) as updated_at,
        _extracted_at,

    from source

)

select * from renamed
