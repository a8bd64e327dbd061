-- materialized: view
-- description: One row per record with exactly the values the identity model compares (macros.identity_levels takes two rows of this view) and blocks on (macros.identity_block_keys): names as token sets and spellings with how common each is (int_identity_term_frequencies) and their initials, birth date, e-mail, phone, and the address as street line (and its letters, and as a place when it has no house number), postal code and town. Read by int_identity_pairs, and by training (fanlake identity train) and explain, so all three compare alike.
-- personal: first_name_spelling (name), last_name_spelling (name), first_name_tokens (name), last_name_tokens (name)
-- personal: birth_date_key (birth_date), birth_date_digits (birth_date), email (email), phone_key (phone)
-- personal: street_key (address), street_letters (address), street_place (address), postcode_key (address)
-- personal: city_key (address)
-- personal: initials (name)

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
        -- its eight digits, YYYYMMDD, compared digit by digit (computed once per record here, not twice per pair)
        strftime(records.birth_date_key, '%Y%m%d') as birth_date_digits,
        records.email,
        records.phone_key,
        records.street_key,
        -- the letters of the street line, compared with the other record's town (a town written in the street field, or the other way round)
        nullif(regexp_replace(records.street_key, '[^a-z]', '', 'g'), '') as street_letters,
        -- a street line without a house number, blocked on as a place like a town: a town written in the street field
        case when not regexp_matches(records.street_key, '[0-9]') then street_letters end as street_place,
        -- the first letters of both names in alphabetical order, so names written either way round meet
        least(left(records.first_name_spelling, 1), left(records.last_name_spelling, 1))
            || greatest(left(records.first_name_spelling, 1), left(records.last_name_spelling, 1)) as initials,
        records.postcode_key,
        records.city_key,

    from records
    left join frequencies as first_words
        on first_words.word = records.first_name_spelling
    left join frequencies as last_words
        on last_words.word = records.last_name_spelling

)

select * from final
