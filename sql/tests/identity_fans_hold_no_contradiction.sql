-- description: No fan holds two records that are two people (macros.identity_contradicts: first names unrelated where the model in force weighs that at least the ambiguity weight against, else in a household's case: one e-mail or phone, or one surname with no other birth date or address (macros.identity_first_names_apart), or birth dates different beyond any slip, a slip and a day-month swap at once included, where the model in force weighs a difference at least the ambiguity weight against (macros.identity_birth_dates_tell_apart), or two customer profiles whose people agree on first names a slip apart) unless hard links or the analysts' same-fan overrides alone join them: the model never chains two people into one fan (int_identity_clusters cuts such a component at its weakest model links and marts.fan_identity_review lists the links cut, reason chain_cut).
-- severity: error

with recursive

-- the records of fans of two or more, with the values the contradiction compares, as
-- int_identity_comparables holds them: stored with each record, so the test reads the table
-- rather than the view (its name frequencies unread). Only fans with two first names or two
-- birth dates, both written and unlike: macros.identity_group_contradictions compares no other
-- pair (a dozen fans of 257,567 at scale 10, so the wide rows of the others are not read)
members as materialized (

    select
        fans.fan_id as group_number,
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
        records.email,
        records.phone_key,
        records.phone_e164,
        records.street_key,
        records.street_letters,
        records.postcode_key,
        records.city_key,

    from intermediate.int_identity_clusters as fans
    inner join intermediate.int_identity_records as records
        on records.record_key = fans.record_key
    where fans.fan_id in (
        select fans.fan_id
        from intermediate.int_identity_clusters as fans
        inner join intermediate.int_identity_records as records
            on records.record_key = fans.record_key
        group by fans.fan_id
        -- two unlike values, nulls aside: what makes a pair the macro compares
        having min(records.first_name_spelling) <> max(records.first_name_spelling)
            or min(records.birth_date_key) <> max(records.birth_date_key)
    )

),

-- two records of one fan that are two people (macros.identity_group_contradictions, as the
-- clusters judge them), the smaller key first
contradicting as (

    select
        contradictions.group_number as fan_id,
        least(lower_members.record_key, higher_members.record_key) as from_key,
        greatest(lower_members.record_key, higher_members.record_key) as to_key,

    from macros.identity_group_contradictions('members', 'members') as contradictions
    inner join members as lower_members
        on lower_members.record_number = contradictions.lower_number
    inner join members as higher_members
        on higher_members.record_number = contradictions.higher_number

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
