-- materialized: incremental
-- unique_key: record_key
-- incremental_delete: record_key in (select record_key from macros.identity_records_dropped('intermediate.int_identity_record_changes', 'intermediate.int_identity_records'))
-- description: One row per record identity resolution compares: a hash of everything its pairs are scored and blocked on (its row of int_identity_comparables, but for how common its names are, which the model in force keeps fixed) and when that last changed (changed_at, the time of the build that saw it). int_identity_pairs scores again only the pairs of records changed since its own last build and keeps every other pair. Incremental: a build hashes only the records int_identity_records computed since its last build (their changed_at; every record whose values changed is among them), writes those whose hash changed, and drops the records gone (macros.identity_records_dropped).
-- not_personal: comparable_signature
-- compression: record_key (fsst), record_number (uncompressed), comparable_signature (uncompressed)
-- test: unique(record_key)
-- test: not_null(record_key, record_number, comparable_signature, changed_at)

with

-- The records int_identity_records computed since this model's last build: a record whose
-- values changed was computed since, so only these can have another hash (hashing every
-- record's values cost most of a quiet build's 0.3 s here). Found by their stamp, then read by
-- row id: a merge appends the rows it writes, so DuckDB reads the last row groups alone. Every
-- record in a first build and --full-refresh, which drop this condition.
computed as (

    select * from intermediate.int_identity_records
    where rowid in (
        select unnest(list(rowid)) from intermediate.int_identity_records
        where changed_at > coalesce(macros.model_built_at('intermediate.int_identity_record_changes'), '-infinity')
            and exists (select 1 from intermediate.int_identity_record_changes)
    )

),

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

    from computed

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
    -- not those whose stored row has this hash: the stored rows of the computed records alone,
    -- found by number as a list unnested, which DuckDB takes for few (a NOT EXISTS hashed every
    -- stored row)
    where record_number not in (
        select stored.record_number
        from intermediate.int_identity_record_changes as stored
        inner join signatures as computed
            on computed.record_number = stored.record_number
            and computed.record_key = stored.record_key
            and computed.comparable_signature = stored.comparable_signature
        where stored.record_number in (select unnest(list(record_number)) from signatures)
    )

)

select * from final
