-- materialized: view
-- description: One row per consent text a person can agree to; the club's consent_meanings map each text, by id and text, to purpose and channel.
-- test: unique(consent_text_id)
-- test: not_null(consent_text_id)

with

source as (

    select * from raw.engagement_consent_texts

),

renamed as (

    select
        cast(id as bigint) as consent_text_id,
        text as consent_text,
        isRequired as is_required,
        isEnabled as is_enabled,
        try_cast(createdDateTime as timestamptz) as created_at,
        try_cast(createdById as bigint) as created_by_id,
        -- set when a complete snapshot no longer had the record (removed upstream)
        _vanished_at as vanished_at,
        _extracted_at,

    from source

)

select * from renamed
