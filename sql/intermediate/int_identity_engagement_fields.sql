-- materialized: table
-- unique_key: system, record_id
-- description: One row per engagement customer profile and person still there, with only the fields identity resolution reads (int_identity_records), as the platform holds them, and the postal address (street line, postal code, town). Kept apart from int_identity_records and from the ticketing records (see int_identity_ticketing_fields).
-- personal: email (email), phone_raw (phone), phone_e164 (phone), first_name (name), last_name (name)
-- personal: birth_date (birth_date), address_key (address), street (address), postal_code (address), city (address)
-- test: unique(system, record_id)
-- test: not_null(system, record_id)

with

-- records removed upstream (a deleted profile takes its people along) are nobody's any more
customer_profiles as (

    select * from staging.stg_engagement__customer_profiles
    where vanished_at is null

),

people as (

    select * from staging.stg_engagement__people
    where vanished_at is null

),

final as (

    select
        'engagement_customer_profile' as system,
        cast(customer_profile_id as varchar) as record_id,
        customer_profile_id,
        cast(null as varchar) as external_user_id,
        email,
        phone_raw,
        phone_e164,
        first_name,
        last_name,
        birth_date,
        macros.address_key(street, postal_code) as address_key,
        street,
        postal_code,
        city,

    from customer_profiles

    union all

    select
        'engagement_person' as system,
        cast(people.person_id as varchar) as record_id,
        people.customer_profile_id,
        -- an externalId (trimmed, staging) that is a whole number may be a ticketing user's id, on
        -- any network: the documents say nothing of networks or systemId. Written as the user's
        -- record_id is (no leading zeros), for int_identity_edges to compare; the hard link there
        -- also asks that the last names do not differ (docs/decisions.md "Hard links")
        case
            when regexp_full_match(people.external_id, '[0-9]{1,18}')
                then cast(try_cast(people.external_id as bigint) as varchar)
        end as external_user_id,
        people.email,
        people.phone_raw,
        people.phone_e164,
        people.first_name,
        people.last_name,
        people.birth_date,
        null as address_key,
        null as street,
        null as postal_code,
        null as city,

    from people

)

select * from final
