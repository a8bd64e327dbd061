-- description: No fan holds two records that are two people (macros.identity_contradicts: first names unrelated, or birth dates different beyond any slip, a slip and a day-month swap at once included, or two customer profiles whose people agree on first names a slip apart) unless hard links or the analysts' same-fan overrides alone join them: the model never chains two people into one fan (int_identity_clusters cuts such a component at its weakest model links and marts.fan_identity_review lists the links cut, reason chain_cut).
-- severity: error

with recursive

-- the records of fans of two or more, with the values the contradiction compares, as
-- int_identity_comparables holds them: stored with each record, so the test reads the table
-- rather than the view (its name frequencies unread)
members as materialized (

    select
        fans.fan_id,
        records.record_number,
        records.record_key,
        records.first_name_spelling,
        records.last_name_spelling,
        records.first_name_tokens,
        records.last_name_tokens,
        records.first_name_forms,
        records.birth_date_key,
        records.birth_date_digits,
        records.people_first_name_spelling,

    from intermediate.int_identity_clusters as fans
    inner join intermediate.int_identity_records as records
        on records.record_key = fans.record_key
    where fans.fan_id in (select fan_id from intermediate.int_identity_clusters group by fan_id having count(*) > 1)

),

-- Only two first names or two birth dates, both written and unlike, can contradict (names the
-- other way round have two first names); the rest of a fan's pairs are not compared, as the
-- clusters compare them. The pairs are judged by macros.identity_pair_contradictions, the
-- contradiction written out over joined columns (a scalar macro repacks each row per field).
member_pairs as (

    select
        members_a.record_number as lower_number,
        members_b.record_number as higher_number,
        members_a.fan_id,
        members_a.record_key as lower_key,
        members_b.record_key as higher_key,

    from members as members_a
    inner join members as members_b
        on members_b.fan_id = members_a.fan_id
        and members_b.record_number > members_a.record_number
    where members_a.first_name_spelling <> members_b.first_name_spelling
        or members_a.birth_date_key <> members_b.birth_date_key

),

-- two records of one fan that are two people, the smaller key first
contradicting as (

    select
        fan_id,
        least(lower_key, higher_key) as from_key,
        greatest(lower_key, higher_key) as to_key,

    from macros.identity_pair_contradictions('member_pairs', 'members')

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
