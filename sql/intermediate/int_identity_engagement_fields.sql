-- materialized: incremental
-- unique_key: system, record_id
-- lineage_columns: _extracted_at, read_at
-- incremental_delete: (system = 'engagement_customer_profile' and customer_profile_id not in (select customer_profile_id from staging.stg_engagement__customer_profiles where vanished_at is null and customer_profile_id is not null)) or (system = 'engagement_person' and (record_id not in (select cast(person_id as varchar) from staging.stg_engagement__people where vanished_at is null and person_id is not null) or customer_profile_id in (select customer_profile_id from staging.stg_engagement__customer_profiles where vanished_at is not null)))
-- description: One row per engagement customer profile and person still there, with only the fields identity resolution reads (int_identity_records), as the platform holds them, and the postal address (street line, postal code, town). Kept apart from int_identity_records and from the ticketing records (see int_identity_ticketing_fields). Incremental: only profiles and people loaded since the last build are read again (each system by its own newest _extracted_at here), and stamped read_at, the time of the build that read them (int_identity_records compares those with what it holds); a record removed upstream is deleted (staging's vanished_at), and so are the people of a removed profile (a profile read by key and found gone is flagged, its people are not until the next full snapshot). A row re-read unchanged moves only _extracted_at and read_at, which is no change for identity resolution (lineage_columns).
-- personal: email (email), phone_raw (phone), phone_e164 (phone), first_name (name), last_name (name)
-- personal: birth_date (birth_date), street (address), postal_code (address), city (address)
-- compression: record_id (fsst), email (fsst), phone_raw (fsst), phone_e164 (fsst), external_user_id (fsst)
-- compression: system (dictionary), first_name (dictionary), last_name (dictionary), street (dictionary)
-- compression: postal_code (dictionary), city (dictionary)
-- test: unique(system, record_id)
-- test: not_null(system, record_id)

with

-- records removed upstream are nobody's any more, nor the people of a removed profile (a
-- profile read by key and found gone is flagged, its people only by the next full snapshot); of
-- the others, only those loaded since the last build (the runner drops that condition on a
-- first build)
customer_profiles as (

    select * from staging.stg_engagement__customer_profiles
    where vanished_at is null
        and _extracted_at > (select greatest(max(_extracted_at), '-infinity'::timestamptz) from intermediate.int_identity_engagement_fields where system = 'engagement_customer_profile')

),

people as (

    select * from staging.stg_engagement__people as person
    where vanished_at is null
        and not exists (
            select 1 from staging.stg_engagement__customer_profiles as removed
            where removed.vanished_at is not null and removed.customer_profile_id = person.customer_profile_id
        )
        and _extracted_at > (select greatest(max(_extracted_at), '-infinity'::timestamptz) from intermediate.int_identity_engagement_fields where system = 'engagement_person')

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
        street,
        postal_code,
        city,
        _extracted_at,
        now() as read_at,

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
        null as street,
        null as postal_code,
        null as city,
        people._extracted_at,
        now() as read_at,

    from people

)

select * from final
