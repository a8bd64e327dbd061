-- materialized: table
-- unique_key: word
-- description: One row per word written as a first or last name (its spelling, as the identity model compares names): how many people carry it (people; a customer profile and its people count once) and the share of all people that is (term_frequency). The identity model weighs an agreeing name by it, as each model version froze it when it first predicted (meta.identity_model_term_frequencies): a rare name is strong evidence, a common one weak (docs/decisions.md "How fans are linked"). Computed by macros.identity_term_frequencies. Written as a difference: a load changes few words' counts.
-- personal: word (name)
-- test: unique(word)
-- test: not_null(word, people, term_frequency)

with

records as (

    select * from intermediate.int_identity_records

),

final as (

    select * from macros.identity_term_frequencies('records')

)

select * from final
