-- description: One row per word written as a first or last name in a table of rows shaped like intermediate.int_identity_records (named by records_table): how many people carry it (people; a customer profile and its people count once) and the share of all people that is (term_frequency). What int_identity_term_frequencies holds, and what an identity model version freezes when it first predicts (frozen-statistics.ts).
create or replace macro macros.identity_term_frequencies(records_table) as table
    with
    records as (
        select * from query_table(records_table)
    ),
    -- each person (entity) once per word it carries, in either field
    carried as (
        select entity_key, first_name_spelling as word from records
        where first_name_spelling is not null
        union
        select entity_key, last_name_spelling as word from records
        where last_name_spelling is not null
        -- each word of a name of several ("Kari Marie"): an agreeing name is weighed by the word
        -- the two have in common
        union
        select entity_key, unnest(first_name_tokens) as word from records
        where len(first_name_tokens) > 1
        union
        select entity_key, unnest(last_name_tokens) as word from records
        where len(last_name_tokens) > 1
    ),
    everyone as (
        select count(distinct entity_key) as people from records
    ),
    final as (
        select
            carried.word,
            count(*) as people,
            count(*) / any_value(everyone.people) as term_frequency,
        from carried
        cross join everyone
        group by carried.word
    )
    select * from final;
