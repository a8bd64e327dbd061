-- materialized: view
-- description: One row per identity an ApiApp created (GET identities/{id} for the linked persons fanlake takes for identities, FANLAKE_ENGAGEMENT_IDENTITIES), typed: the persona's nick name, how it authenticates, and the club's custom profile fields (extended_properties).
-- personal: first_name (name), last_name (name), full_name (name), nick_name (online_identifier)
-- personal: birth_date (birth_date), email (email), phone_raw (phone), phone_e164 (phone), street (address)
-- personal: postal_code (address), city (address), profile_image_url (online_identifier)
-- personal: extended_properties (free_text), custom_authentication_fields (online_identifier)
-- test: unique(identity_id)
-- test: not_null(identity_id)
-- test[warn]: relationships(identity_id -> staging.stg_engagement__people.person_id)
-- test[warn]: relationships(customer_profile_id -> staging.stg_engagement__customer_profiles.customer_profile_id)

with

source as (

    select * from raw.engagement_identities

),

renamed as (

    select
        -- ids: an identity is the linked person with the same id
        cast(id as bigint) as identity_id,
        try_cast(customerProfileId as bigint) as customer_profile_id,
        nullif(trim(externalId), '') as external_id,
        -- none, email, phone or other; fixed when the identity was created
        nullif(authenticationMethod, '') as authentication_method,

        -- names: the platform sends '' for unknown
        nullif(trim(firstName), '') as first_name,
        nullif(trim(lastName), '') as last_name,
        nullif(trim(fullName), '') as full_name,
        nullif(trim(nickName), '') as nick_name,
        -- sample shape "1987-04-15 00:00:00.000Z": the date part is the birthday
        try_cast(left(dateOfBirth, 10) as date) as birth_date,
        nullif(gender, '') as gender,
        -- true, false or unspecified (null)
        case isAdult when 'true' then true when 'false' then false end as is_adult,

        -- contact: the phone is a tel: URI (RFC 3966): a global number with visual separators
        macros.email_normalized(email) as email,
        nullif(trim(phone), '') as phone_raw,
        nullif(regexp_extract(regexp_replace(phone, '[-.()]', '', 'g'), '^tel:(\+[1-9][0-9]{6,14})$', 1), '') as phone_e164,
        nullif(trim(street), '') as street,
        nullif(trim(postalCode), '') as postal_code,
        nullif(trim(city), '') as city,
        nullif(trim(county), '') as county,
        nullif(trim(country), '') as country_code,
        nullif(timeZone, '') as time_zone,
        nullif(profileImageUrl, '') as profile_image_url,

        -- the club's custom profile fields, as the API sent them (a JSON object)
        extendedProperties as extended_properties,
        customAuthenticationFields as custom_authentication_fields,
        -- set when a complete snapshot no longer had the record (removed upstream)
        _vanished_at as vanished_at,
        _extracted_at,

    from source

)

select * from renamed
