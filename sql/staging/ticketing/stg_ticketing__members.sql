-- materialized: view
-- description: One row per imported member entry, typed; phone normalized (members link to users by phone).
-- personal: member_name (name), phone_raw (phone), phone_e164 (phone), tasks (free_text)
-- test: unique(member_id)
-- test: not_null(member_id)

with

source as (

    select * from raw.ticketing_members

),

renamed as (

    select
        id as member_id,
        name as member_name,
        nullif(trim(phone), '') as phone_raw,
        -- The same rule as stg_ticketing__users.phone_e164; see docs/metrics.md.
        macros.phone_e164(phone) as phone_e164,
        category_id as member_category_id,
        category as member_category_name,
        max_tickets_per_match,
        ticket_pool_used,
        -- -1 is the API's "unlimited", kept as sent; marts turn it into is_unlimited.
        ticket_pool_total,
        ticket_pool_total_text,
        coalesce(ticket_pool_total < 0, false) as has_unlimited_pool,
        tasks,
        try_cast(last_update as timestamptz) as updated_at,
        _extracted_at,

    from source

)

select * from renamed
