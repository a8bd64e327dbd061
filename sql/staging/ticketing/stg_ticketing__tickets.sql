-- materialized: view
-- rows_of: raw.ticketing_tickets ticket_id
-- description: One row per ticket, typed. Buyer and holder contact details are snapshots of the user record and are left in raw: join users by buyer_user_id / holder_user_id.
-- test: unique(ticket_id)
-- test: not_null(ticket_id, match_id)

with

source as (

    select * from raw.ticketing_tickets

),

-- the columns and their types are the macro's, which dim_match applies to the few tickets it reads
renamed as (

    select * from macros.ticketing_tickets_typed('source')

)

select * from renamed
