-- description: No fan holds two records that are two people (macros.identity_contradicts: first names unrelated, or birth dates different beyond any slip, a slip and a day-month swap at once included, or two customer profiles whose people agree on first names a slip apart) unless hard links or the analysts' same-fan overrides alone join them: the model never chains two people into one fan (int_identity_clusters cuts such a component at its weakest model links and marts.fan_identity_review lists the links cut, reason chain_cut).
-- severity: error

with recursive

fans as (

    select fan_id, record_key from intermediate.int_identity_clusters

),

-- the values the contradiction compares, as int_identity_comparables holds them: stored with
-- each record, so the test reads the table rather than the view (its name frequencies unread)
comparables as (

    select record_key, first_name_spelling, last_name_spelling, first_name_tokens, last_name_tokens, first_name_forms, birth_date_key, birth_date_digits, people_first_name_spelling
    from intermediate.int_identity_records

),

-- two records of one fan that are two people
contradicting as (

    select
        fans_a.fan_id,
        fans_a.record_key as from_key,
        fans_b.record_key as to_key,

    from fans as fans_a
    inner join fans as fans_b
        on fans_b.fan_id = fans_a.fan_id
        and fans_b.record_key > fans_a.record_key
    inner join comparables as compared_a
        on compared_a.record_key = fans_a.record_key
    inner join comparables as compared_b
        on compared_b.record_key = fans_b.record_key
    where macros.identity_contradicts(compared_a, compared_b)

),

-- the hard links and same-fan overrides, both ways
hard_ends as (

    select from_key as record_key, to_key as other_key from intermediate.int_identity_edges where rule_rank < 3
    union all
    select to_key as record_key, from_key as other_key from intermediate.int_identity_edges where rule_rank < 3
    union all
    select from_key as record_key, to_key as other_key from intermediate.int_identity_overrides where decision = 'same'
    union all
    select to_key as record_key, from_key as other_key from intermediate.int_identity_overrides where decision = 'same'

),

-- every record hard links reach from a contradicting pair's first record
reached (start_key, record_key) as (

    select distinct from_key, from_key from contradicting

    union

    select reached.start_key, hard_ends.other_key
    from reached
    inner join hard_ends
        on hard_ends.record_key = reached.record_key

)

select contradicting.*
from contradicting
where not exists (
    select 1 from reached
    where reached.start_key = contradicting.from_key
        and reached.record_key = contradicting.to_key
)
