-- materialized: table
-- unique_key: word
-- description: One row per word written as a first or last name (its spelling, as the identity model compares names): how many people carry it (people; a customer profile and its people count once) and the share of all people that is (term_frequency). The identity model weighs an agreeing name by it: a rare name is strong evidence, a common one weak (docs/decisions.md "How fans are linked"). Written as a difference: a load changes few words' counts.
-- personal: word (name)
-- test: unique(word)
-- test: not_null(word, people, term_frequency)

with

records as (

    select * from intermediate.int_identity_records

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

select * from final
