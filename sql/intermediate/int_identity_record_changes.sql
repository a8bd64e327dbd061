-- materialized: incremental
-- unique_key: record_key
-- incremental_delete: record_number not in (select record_number from intermediate.int_identity_records)
-- description: One row per record identity resolution compares: a hash of everything its pairs are scored and blocked on (its row of int_identity_comparables, but for how common its names are, which the model in force keeps fixed) and when that last changed (changed_at, the time of the build that saw it). int_identity_pairs scores again only the pairs of records changed since its own last build and keeps every other pair. Incremental: a build writes only the records whose hash changed, and drops the records gone.
-- not_personal: comparable_signature
-- test: unique(record_key)
-- test: not_null(record_key, record_number, comparable_signature, changed_at)

with

-- what a record's pairs depend on: its compared values, not the names' term frequencies (frozen
-- with the model version: a new version rescores every pair anyway), so its row of
-- int_identity_comparables without them, in the view's order, read from the records (the view
-- would weigh every name for nothing)
compared as (

    select
        record_number,
        record_key,
        entity_key,
        first_name_spelling,
        last_name_spelling,
        first_name_tokens,
        last_name_tokens,
        first_name_forms,
        birth_date_key,
        birth_date_digits,
        email,
        phone_key,
        phone_e164,
        street_key,
        street_letters,
        street_place,
        initials,
        postcode_key,
        city_key,

    from intermediate.int_identity_records

),

signatures as (

    select
        compared.record_key,
        compared.record_number,
        hash(compared) as comparable_signature,

    from compared

),

final as (

    select
        signatures.record_key,
        signatures.record_number,
        signatures.comparable_signature,
        now() as changed_at,

    from signatures
    where not exists (
        select 1 from intermediate.int_identity_record_changes as stored
        where stored.record_key = signatures.record_key
            and stored.comparable_signature = signatures.comparable_signature
    )

)

select * from final
