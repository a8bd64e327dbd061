-- materialized: view
-- description: One row per linked person (social identity) of a customer profile, typed. Identities created by an ApiApp carry system_id and that app's external_id.
-- personal: first_name (name), last_name (name), full_name (name), display_name (name)
-- personal: profile_name (online_identifier), birth_date (birth_date), email (email), phone_raw (phone)
-- personal: phone_e164 (phone), location (address), profile_url (online_identifier)
-- personal: profile_image_url (online_identifier), custom_data (free_text)
-- personal: custom_authentication_fields (online_identifier)
-- test: unique(person_id)
-- test: not_null(person_id, customer_profile_id)
-- test[warn]: relationships(customer_profile_id -> staging.stg_engagement__customer_profiles.customer_profile_id)

with

source as (

    select * from raw.engagement_people

),

renamed as (

    select
        -- ids
        cast(id as bigint) as person_id,
        try_cast(customerProfileId as bigint) as customer_profile_id,
        -- the ApiApp that created this identity; null for social network logins
        try_cast(systemId as bigint) as api_app_id,
        nullif(trim(externalId), '') as external_id,
        network,
        tenantId as tenant_id,

        -- names
        nullif(trim(firstName), '') as first_name,
        nullif(trim(lastName), '') as last_name,
        nullif(trim(fullName), '') as full_name,
        nullif(trim(displayName), '') as display_name,
        nullif(trim(profileName), '') as profile_name,
        -- sample shape "1987-04-15 00:00:00.000Z": the date part is the birthday
        try_cast(left(dateOfBirth, 10) as date) as birth_date,
        nullif(gender, '') as gender,
        -- true, false or unspecified (null)
        case isAdult when 'true' then true when 'false' then false end as is_adult,

        -- contact: an sms login's profile name is its phone number (tel: URI)
        macros.email_normalized(emailAddress) as email,
        case when network = 'sms' then nullif(trim(profileName), '') end as phone_raw,
        case when network = 'sms' then macros.phone_e164(profileName) end as phone_e164,
        location,
        country as country_code,
        language as language_code,

        profileUrl as profile_url,
        profileImageUrl as profile_image_url,
        isDisabled as is_disabled,
        customData as custom_data,
        try_cast(customAuthenticationFields as json) as custom_authentication_fields,
        -- set when a complete snapshot no longer had the record (removed upstream)
        _vanished_at as vanished_at,
        _extracted_at,

    from source

)

select * from renamed
