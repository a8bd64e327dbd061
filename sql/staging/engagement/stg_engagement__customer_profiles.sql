-- materialized: view
-- description: One row per engagement customer profile (a person as the platform sees them), typed; e-mail and phone normalized for matching.
-- personal: display_name (name), full_name (name), first_name (name), last_name (name), birth_date (birth_date)
-- personal: email (email), phone_raw (phone), phone_e164 (phone), street (address), postal_code (address)
-- personal: city (address), location (address), image_url (online_identifier)
-- personal: custom_authentication_fields (online_identifier)
-- test: unique(customer_profile_id)
-- test: not_null(customer_profile_id)

with

source as (

    select * from raw.engagement_customer_profiles

),

renamed as (

    select
        -- ids are JSON strings in the API; BIGINT so they compare with foreign keys
        cast(id as bigint) as customer_profile_id,
        tenantId as tenant_id,

        -- names: the platform sends '' for unknown
        nullif(trim(displayName), '') as display_name,
        nullif(trim(fullName), '') as full_name,
        nullif(trim(firstName), '') as first_name,
        nullif(trim(lastName), '') as last_name,
        -- a datetime at midnight UTC; the date part is the birthday
        try_cast(left(dateOfBirth, 10) as date) as birth_date,
        nullif(gender, '') as gender,

        -- contact, normalized as in stg_ticketing__users
        macros.email_normalized(email) as email,
        nullif(trim(phoneNumber), '') as phone_raw,
        macros.phone_e164(phoneNumber) as phone_e164,
        nullif(street, '') as street,
        nullif(postalCode, '') as postal_code,
        nullif(city, '') as city,
        nullif(county, '') as county,
        nullif(country, '') as country,
        nullif(location, '') as location,
        nullif(timeZone, '') as time_zone,
        nullif(languageCode, '') as language_code,
        nullif(imageUrl, '') as image_url,

        try_cast(customAuthenticationFields as json) as custom_authentication_fields,
        json_array_length(links, '$.people') as people_count,
        -- set when a complete snapshot no longer had the record (removed upstream)
        _vanished_at as vanished_at,
        _extracted_at,

    from source

)

select * from renamed
