-- materialized: view
-- description: One row per user and consent type answered; id_user (text in the API) cast to BIGINT.
-- test: unique(user_id, consent_type_id)
-- test: not_null(user_id, consent_type_id)

with

source as (

    select * from raw.ticketing_user_permissions

),

renamed as (

    select
        try_cast(trim(id_user) as bigint) as user_id,
        id_consent_basic as consent_type_id,
        name as consent_name,
        consent_description,
        decision as has_consented,
        try_cast(last_update as timestamptz) as updated_at,
        _extracted_at,

    from source

)

select * from renamed
