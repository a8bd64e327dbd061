-- materialized: view
-- description: One row per record with exactly the values the identity model compares (macros.identity_levels takes two rows of this view) and blocks on (macros.identity_block_keys): names as token sets and spellings with how common each is (int_identity_term_frequencies), birth date, e-mail, phone, and the address as street line, postal code and town. Read by int_identity_pairs, and by training (fanlake identity train) and explain, so all three compare alike.

with

records as (

    select * from intermediate.int_identity_records

),

frequencies as (

    select * from intermediate.int_identity_term_frequencies

),

final as (

    select
        records.record_number,
        records.record_key,
        records.entity_key,
        records.first_name_spelling,
        records.last_name_spelling,
        records.first_name_tokens,
        records.last_name_tokens,
        first_words.term_frequency as first_name_tf,
        last_words.term_frequency as last_name_tf,
        records.birth_date_key,
        records.email,
        records.phone_key,
        records.street_key,
        records.postcode_key,
        records.city_key,

    from records
    left join frequencies as first_words
        on first_words.word = records.first_name_spelling
    left join frequencies as last_words
        on last_words.word = records.last_name_spelling

)

select * from final
