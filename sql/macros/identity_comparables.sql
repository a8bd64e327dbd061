-- description: One row per record of a table shaped like intermediate.int_identity_records (named by records_table) with exactly the values the identity model compares and blocks on, and how common its names are as the model in force froze them (macros.identity_model_term_frequencies): what the view int_identity_comparables holds for every record, and int_identity_ambiguous_links for the few records it compares (a filter on the view's rows would still compute every one).
create or replace macro macros.identity_comparables(records_table) as table
    with

    -- not materialized: no copy of every record is made for the two reads below
    compared_records as not materialized (

        select * from query_table(records_table)

    ),

    -- How common each name is, as the model in force froze it when it was first predicted with
    -- (frozen-statistics.ts): a pair scores alike in every build until the next version, so an
    -- incremental build of the pairs equals a full one, and a load that changes how many people
    -- carry a name leaves these values as they were. A name it does not list weighs as one person's.
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
            from compared_records
            where len(first_name_tokens) > 1
            union all
            select record_number, 'last' as field, unnest(last_name_tokens) as token, generate_subscripts(last_name_tokens, 1) as position
            from compared_records
            where len(last_name_tokens) > 1
        ) as tokens
        left join frequencies
            on frequencies.word = tokens.token
        group by tokens.record_number, tokens.field

    ),

    final as (

        select
            compared_records.record_number,
            compared_records.record_key,
            compared_records.entity_key,
            compared_records.first_name_spelling,
            compared_records.last_name_spelling,
            compared_records.first_name_tokens,
            compared_records.last_name_tokens,
            case when compared_records.first_name_spelling is not null then coalesce(first_words.term_frequency, macros.identity_model_rare_term_frequency()) end as first_name_tf,
            case when compared_records.last_name_spelling is not null then coalesce(last_words.term_frequency, macros.identity_model_rare_term_frequency()) end as last_name_tf,
            first_token_words.term_frequencies as first_name_token_tfs,
            compared_records.first_name_forms,
            compared_records.people_first_name_spelling,
            last_token_words.term_frequencies as last_name_token_tfs,
            compared_records.birth_date_key,
            compared_records.birth_date_digits,
            compared_records.email,
            compared_records.phone_key,
            compared_records.phone_e164,
            compared_records.street_key,
            compared_records.street_letters,
            compared_records.street_place,
            compared_records.initials,
            compared_records.postcode_key,
            compared_records.city_key,

        from compared_records
        left join frequencies as first_words
            on first_words.word = compared_records.first_name_spelling
        left join frequencies as last_words
            on last_words.word = compared_records.last_name_spelling
        left join token_frequencies as first_token_words
            on first_token_words.record_number = compared_records.record_number
            and first_token_words.field = 'first'
        left join token_frequencies as last_token_words
            on last_token_words.record_number = compared_records.record_number
            and last_token_words.field = 'last'

    )

    select * from final;
