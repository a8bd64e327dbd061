-- description: One row per record of a table shaped like intermediate.int_identity_records (named by records_table) with exactly the values the identity model compares and blocks on, and how common its names are as the model in force froze them (macros.identity_model_term_frequencies): what the view int_identity_comparables holds for every record, and int_identity_ambiguous_links for the few records it compares (a filter on the view's rows would still compute every one).
create or replace macro macros.identity_comparables(records_table) as table
    with

    -- How common each name is, as the model in force froze it when it was first predicted with
    -- (frozen-statistics.ts): a pair scores alike in every build until the next version, so an
    -- incremental build of the pairs equals a full one, and a load that changes how many people
    -- carry a name leaves these values as they were. A name it does not list weighs as one person's.
    -- None before the first training (which does not weigh names by them).
    frequencies as (

        select word, term_frequency from macros.identity_model_term_frequencies()

    ),

    -- The frequencies as one map, and a name's not listed, beside every record: each word of a
    -- name of several words is looked up in it (below). As words unnested, joined and listed
    -- again, the records were read twice, and a table read twice DuckDB copies whole first (a
    -- stored macro keeps no "not materialized" hint): 0.5 s of a full build of int_identity_pairs.
    lookup as (

        select
            map(list(word), list(term_frequency)) as term_frequencies,
            macros.identity_model_rare_term_frequency() as rare_term_frequency,

        from frequencies

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
            case when compared_records.first_name_spelling is not null then coalesce(first_words.term_frequency, lookup.rare_term_frequency) end as first_name_tf,
            case when compared_records.last_name_spelling is not null then coalesce(last_words.term_frequency, lookup.rare_term_frequency) end as last_name_tf,
            -- how common each word of a name of several words is, in the order of its tokens (a
            -- name of one word has its spelling's): what an agreeing name is weighed by is the
            -- word the two share
            case when len(compared_records.first_name_tokens) > 1 then list_transform(compared_records.first_name_tokens, token -> coalesce(lookup.term_frequencies[token], lookup.rare_term_frequency)) end as first_name_token_tfs,
            compared_records.first_name_forms,
            compared_records.people_first_name_spelling,
            case when len(compared_records.last_name_tokens) > 1 then list_transform(compared_records.last_name_tokens, token -> coalesce(lookup.term_frequencies[token], lookup.rare_term_frequency)) end as last_name_token_tfs,
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

        from query_table(records_table) as compared_records
        cross join lookup
        left join frequencies as first_words
            on first_words.word = compared_records.first_name_spelling
        left join frequencies as last_words
            on last_words.word = compared_records.last_name_spelling

    )

    select * from final;
