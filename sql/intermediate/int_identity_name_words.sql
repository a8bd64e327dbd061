-- materialized: table
-- description: One row per word written as a first or a last name in any record identity resolution links (its spelling: folded, then transliterated, as matching compares names): how many records write it as a first name and as a last name (first_uses, last_uses: whether a name was written the wrong way round, int_identity_records), and how common it is as either, counted as the more common word one slip away where there is one (first_weight, last_weight: how common a name is, int_identity_name_counts). Counted from the fields as the systems hold them (int_identity_ticketing_fields, int_identity_engagement_fields), once per distinct name written, not per record.
-- personal: word (name)
-- test: unique(word)
-- test: not_null(word, first_uses, last_uses, first_weight, last_weight)

with

fields as (

    select first_name, last_name from intermediate.int_identity_ticketing_fields
    union all
    select first_name, last_name from intermediate.int_identity_engagement_fields

),

-- each name as written, with how many records write it; spelt once per distinct name below
written as (

    select 'first' as field, first_name as name, count(*) as uses
    from fields
    where first_name is not null
    group by first_name

    union all

    select 'last' as field, last_name as name, count(*) as uses
    from fields
    where last_name is not null
    group by last_name

),

spelt as (

    select
        field,
        macros.name_transliterated(
            case when field = 'first' then macros.first_name_key(name) else macros.last_name_key(name) end
        ) as word,
        uses,

    from written

),

word_uses as (

    select
        word,
        coalesce(sum(uses) filter (where field = 'first'), 0) as first_uses,
        coalesce(sum(uses) filter (where field = 'last'), 0) as last_uses,

    from spelt
    group by word
    -- not "where word is not null": DuckDB pushed that test down to the fields, spelling every
    -- record's name instead of each distinct one, many times the work; a test of an aggregate
    -- stays here
    having count(word) > 0

),

-- How common each word is as a first and as a last name, or as a more common word one slip
-- away with the same first letter ("johansn" is a slip of "johansen", and as common): the same
-- slip of a common name recurs, so a misspelt common name is not a rare one. Only the 100 most
-- common words of each field are compared with, so the work stays linear.
common_words as (

    select * from word_uses
    qualify row_number() over (order by first_uses desc, word) <= 100
        or row_number() over (order by last_uses desc, word) <= 100

),

final as (

    select
        word_uses.word,
        word_uses.first_uses,
        word_uses.last_uses,
        greatest(word_uses.first_uses, coalesce(max(common_words.first_uses), 0)) as first_weight,
        greatest(word_uses.last_uses, coalesce(max(common_words.last_uses), 0)) as last_weight,

    from word_uses
    left join common_words
        on left(common_words.word, 1) = left(word_uses.word, 1)
        and common_words.word <> word_uses.word
        and abs(length(common_words.word) - length(word_uses.word)) <= 1
        and damerau_levenshtein(common_words.word, word_uses.word) <= 1
    group by word_uses.word, word_uses.first_uses, word_uses.last_uses

)

select * from final
