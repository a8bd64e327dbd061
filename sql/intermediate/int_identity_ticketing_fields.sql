-- materialized: incremental
-- unique_key: system, record_id
-- lineage_columns: _extracted_at, read_at
-- description: One row per ticketing user and member, with only the fields identity resolution reads (int_identity_records), as the system holds them (a member's one name field split in two), and the postal address (street line, postal code, town). Kept apart from int_identity_records, the costly part, and from the engagement records: a load that changes other fields only (a login, a member's used pool) rebuilds this table to the same rows, and identity resolution stops here. Incremental: only users and members loaded since the last build are read again (each system by its own newest _extracted_at here, as marts.fct_tickets does); ticketing records are never removed upstream, so nothing is deleted. Each row read is stamped read_at, the time of the build that read it (int_identity_records compares those with what it holds). A row re-read unchanged moves only _extracted_at and read_at, which is no change for identity resolution (lineage_columns).
-- personal: email (email), phone_raw (phone), phone_e164 (phone), first_name (name), last_name (name)
-- personal: birth_date (birth_date), street (address), postal_code (address), city (address)
-- compression: record_id (fsst), email (fsst), phone_raw (fsst), phone_e164 (fsst), external_user_id (dictionary)
-- compression: system (dictionary), first_name (dictionary), last_name (dictionary), street (dictionary)
-- compression: postal_code (dictionary), city (dictionary)
-- test: unique(system, record_id)
-- test: not_null(system, record_id)

with

-- only those loaded since the last build; the runner drops these conditions on a first build
users as (

    select * from staging.stg_ticketing__users
    where _extracted_at > (select greatest(max(_extracted_at), '-infinity'::timestamptz) from intermediate.int_identity_ticketing_fields where system = 'ticketing_user')

),

members as (

    select * from staging.stg_ticketing__members
    where _extracted_at > (select greatest(max(_extracted_at), '-infinity'::timestamptz) from intermediate.int_identity_ticketing_fields where system = 'ticketing_member')

),

-- Members have one name field, "First Last" or "LASTNAME, First".
members_named as (

    select
        member_id,
        _extracted_at,
        phone_raw,
        phone_e164,
        case
            when member_name like '%,%' then trim(split_part(member_name, ',', 2))
            else split_part(trim(member_name), ' ', 1)
        end as first_name,
        case
            when member_name like '%,%' then trim(split_part(member_name, ',', 1))
            else nullif(trim(substr(trim(member_name), strpos(trim(member_name), ' ') + 1)), trim(member_name))
        end as last_name,

    from members

),

final as (

    select
        'ticketing_user' as system,
        cast(user_id as varchar) as record_id,
        cast(null as bigint) as customer_profile_id,
        cast(null as varchar) as external_user_id,
        email,
        phone_raw,
        phone_e164,
        nullif(trim(first_name), '') as first_name,
        nullif(trim(last_name), '') as last_name,
        birth_date,
        nullif(trim(address), '') as street,
        nullif(trim(zip_code), '') as postal_code,
        nullif(trim(city), '') as city,
        _extracted_at,
        now() as read_at,

    from users

    union all

    select
        'ticketing_member' as system,
        cast(member_id as varchar) as record_id,
        null as customer_profile_id,
        null as external_user_id,
        null as email,
        phone_raw,
        phone_e164,
        nullif(first_name, '') as first_name,
        nullif(last_name, '') as last_name,
        null as birth_date,
        null as street,
        null as postal_code,
        null as city,
        _extracted_at,
        now() as read_at,

    from members_named

)

select * from final
