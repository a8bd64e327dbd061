-- materialized: view
-- description: One row per ticketing user, typed; e-mail and phone normalized for matching.
-- personal: username (online_identifier), first_name (name), last_name (name), full_name (name)
-- personal: birth_date (birth_date), email (email), phone_raw (phone), phone_e164 (phone), address (address)
-- personal: city (address), zip_code (address)
-- test: unique(user_id)
-- test: not_null(user_id)
-- test[warn]: not_null(email)

with

source as (

    select * from raw.ticketing_users

),

renamed as (

    select
        id as user_id,
        username,
        name_first as first_name,
        name_last as last_name,
        completename as full_name,
        try_cast(birthday as date) as birth_date,
        gender,
        -- Normalized once here; see docs/metrics.md "Contact normalization".
        macros.email_normalized(email) as email,
        nullif(trim(phone), '') as phone_raw,
        macros.phone_e164(phone) as phone_e164,
        enabled as is_enabled,
        address,
        city,
        country as country_code,
        zip_code,
        user_category,
        try_cast(user_created as timestamptz) as created_at,
        try_cast(user_last_login as timestamptz) as last_login_at,
        try_cast(last_update as timestamptz) as updated_at,
        _extracted_at,

    from source

)

select * from renamed
