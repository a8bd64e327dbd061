-- materialized: view
-- description: One row per record with exactly the values the identity model compares (macros.identity_levels takes two rows of this view) and blocks on (macros.identity_block_keys): names as token sets and spellings with how common each is (as the model in force froze int_identity_term_frequencies: macros.identity_model_term_frequencies), the first name's forms (the club's first_name_forms.csv: Bob is a form of Robert) and their initials, birth date, e-mail, phone, and the address as street line (and its letters, and as a place when it has no house number), postal code and town. Read by int_identity_pairs, and by training (fanlake identity train) and explain, so all three compare alike.
-- personal: first_name_spelling (name), last_name_spelling (name), first_name_tokens (name), last_name_tokens (name)
-- personal: birth_date_key (birth_date), birth_date_digits (birth_date), email (email), phone_key (phone)
-- personal: street_key (address), street_letters (address), street_place (address), postcode_key (address)
-- personal: city_key (address)
-- personal: initials (name), phone_e164 (phone), first_name_forms (name)

with

-- not materialized: a reader's filter on the records (int_identity_ambiguous_links reads a few)
-- reaches the table's scan, and no copy of every record is made for the two reads below
records as not materialized (

    select * from intermediate.int_identity_records

),

-- How common each name is, as the model in force froze it when it was first predicted with
-- (frozen-statistics.ts): a pair scores alike in every build until the next version, so an
-- incremental build of the pairs equals a full one, and a load that changes how many people
-- carry a name leaves this view as it was. A name it does not list weighs as one person's.
-- None before the first training (which does not weigh names by them).
frequencies as (

    select word, term_frequency from macros.identity_model_term_frequencies()

),

-- how common each word of a name of several words is, in the order of its tokens (a name of one
-- word has its spelling's): what an agreeing name is weighed by is the word the two share
token_frequencies as (

    select
        tokens.record_number,
        tokens.field,
        list(coalesce(frequencies.term_frequency, macros.identity_model_rare_term_frequency()) order by tokens.position) as term_frequencies,

    from (
        select record_number, 'first' as field, unnest(first_name_tokens) as token, generate_subscripts(first_name_tokens, 1) as position
        from records
        where len(first_name_tokens) > 1
        union all
        select record_number, 'last' as field, unnest(last_name_tokens) as token, generate_subscripts(last_name_tokens, 1) as position
        from records
        where len(last_name_tokens) > 1
    ) as tokens
    left join frequencies
        on frequencies.word = tokens.token
    group by tokens.record_number, tokens.field

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
        case when records.first_name_spelling is not null then coalesce(first_words.term_frequency, macros.identity_model_rare_term_frequency()) end as first_name_tf,
        case when records.last_name_spelling is not null then coalesce(last_words.term_frequency, macros.identity_model_rare_term_frequency()) end as last_name_tf,
        first_token_words.term_frequencies as first_name_token_tfs,
        records.first_name_forms,
        last_token_words.term_frequencies as last_name_token_tfs,
        records.birth_date_key,
        records.birth_date_digits,
        records.email,
        records.phone_key,
        records.phone_e164,
        records.street_key,
        records.street_letters,
        records.street_place,
        records.initials,
        records.postcode_key,
        records.city_key,

    from records
    left join frequencies as first_words
        on first_words.word = records.first_name_spelling
    left join frequencies as last_words
        on last_words.word = records.last_name_spelling
    left join token_frequencies as first_token_words
        on first_token_words.record_number = records.record_number
        and first_token_words.field = 'first'
    left join token_frequencies as last_token_words
        on last_token_words.record_number = records.record_number
        and last_token_words.field = 'last'

)

select * from final
