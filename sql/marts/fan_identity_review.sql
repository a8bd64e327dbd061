-- materialized: table
-- description: One row per borderline pair of records for an analyst to settle in the identity overrides file (record_a, record_b, decision same or different). reason near_similarity: same birth date and first name, last names alike but short of the similar-last-name rule (score at least min_similarity - 0.05, at most two edits), in different fans. household_split: one e-mail or phone, one last name, first names different but alike (Jaro-Winkler at least 0.85), so the household guard kept them apart. weak_link: a link made on alike rather than equal names (its score below 1, by a rule that compares names: a rule that compares none, such as external_id or customer_profile, is never weak), or by a rule the seed marks for review (review true: one e-mail and one full name whose phones differ, a name and an address, a rare name alone), whose two records no path of up to three other links (exact, of rules not marked) joins, so it alone makes them one fan. override_not_applied: a line of the overrides file naming a record the warehouse does not have. Pairs the file already settles are left out.
-- test: not_null(record_a, record_b, reason)
-- test: accepted_values(reason: near_similarity, household_split, weak_link, override_not_applied)

with

records as (

    select * from intermediate.int_identity_records

),

clusters as (

    select * from intermediate.int_identity_clusters

),

edges as (

    select * from intermediate.int_identity_edges

),

overrides as (

    select * from intermediate.int_identity_overrides

),

settled as (

    select * from macros.identity_overrides()

),

rules as (

    select
        *,
        -- a rule that compares no name (an external id, a profile and its people) is not made
        -- weaker by names that differ: its score still measures the names, not the link
        first_name = 'any' and last_name = 'any' as ignores_names,

    from seeds.identity_match_rules

),

-- how far under a similarity rule's threshold a pair still deserves a look
margins as (

    select
        0.05 as similarity_margin,
        0.85 as first_name_similarity,

),

-- only the columns the candidates compare: the records' other columns (name token lists,
-- counts) would be carried through every join for nothing
keyed as (

    select
        records.record_key,
        records.record_number,
        records.email,
        records.phone_key,
        records.first_name_spelling,
        records.last_name_spelling,
        records.birth_date_key,
        clusters.fan_id,

    from records
    inner join clusters
        on clusters.record_key = records.record_key

),

-- (1) The similarity rule's block (birth date and first name), last names alike but not enough.
near_similarity as (

    select
        lower_records.record_key as record_a,
        higher_records.record_key as record_b,
        'near_similarity' as reason,
        rules.match_rule,
        jaro_winkler_similarity(lower_records.last_name_spelling, higher_records.last_name_spelling) as score,
        rules.min_similarity,
        concat_ws('; ', 'last name ' || lower_records.last_name_spelling, 'phone ' || lower_records.phone_key) as values_a,
        concat_ws('; ', 'last name ' || higher_records.last_name_spelling, 'phone ' || higher_records.phone_key) as values_b,

    from keyed as lower_records
    inner join keyed as higher_records
        on higher_records.birth_date_key = lower_records.birth_date_key
        and higher_records.first_name_spelling = lower_records.first_name_spelling
        and higher_records.record_key > lower_records.record_key
        and higher_records.fan_id <> lower_records.fan_id
    inner join rules
        on rules.last_name = 'similar'
    cross join margins
    where lower_records.last_name_spelling <> higher_records.last_name_spelling
        and jaro_winkler_similarity(lower_records.last_name_spelling, higher_records.last_name_spelling) >= rules.min_similarity - margins.similarity_margin
        and damerau_levenshtein(lower_records.last_name_spelling, higher_records.last_name_spelling) <= 2

),

-- (2) One e-mail or phone on records of different fans with one last name and first names
-- that differ but are alike: the household guard split them, and they may be one person. One pair per pair of fans, by their smallest records.
shared_values as (

    select 'email' as shared, email as shared_value, macros.block_key('email ' || email) as shared_key, record_key, fan_id, first_name_spelling, last_name_spelling from keyed
    where email is not null
    union all
    select 'phone' as shared, phone_key as shared_value, macros.block_key('phone ' || phone_key) as shared_key, record_key, fan_id, first_name_spelling, last_name_spelling from keyed
    where phone_key is not null

),

-- Values on more than one record, up to the rules' block cap (larger blocks are placeholders,
-- not households), held by more than one fan and first name: one pass over the values,
-- grouped on their 64-bit hash, not their text, and the fans and first names compared as
-- hashes too (min < max: as count(distinct) > 1, without counting; a string min and max over
-- the values of every shared block took 0.28 s at scale 10). The pairs below still compare
-- the values themselves.
household_blocks as (

    select shared_key
    from shared_values
    group by shared_key
    having count(*) between 2 and (select min(block_cap) from rules where match_rule in ('email_name', 'phone_name'))
        and min(hash(fan_id)) < max(hash(fan_id))
        and min(hash(first_name_spelling)) filter (where first_name_spelling is not null)
            < max(hash(first_name_spelling)) filter (where first_name_spelling is not null)

),

household_pairs as (

    select
        min(lower_values.record_key) as lower_key,
        min(higher_values.record_key) as higher_key,
        any_value(case lower_values.shared when 'email' then 'email_name' else 'phone_name' end) as match_rule,
        any_value(lower_values.shared || ' ' || lower_values.shared_value || '; first name ' || lower_values.first_name_spelling) as lower_values,
        any_value(higher_values.shared || ' ' || higher_values.shared_value || '; first name ' || higher_values.first_name_spelling) as higher_values,

    from household_blocks
    inner join shared_values as lower_values
        on lower_values.shared_key = household_blocks.shared_key
    cross join margins
    inner join shared_values as higher_values
        on higher_values.shared_key = lower_values.shared_key
        and higher_values.shared = lower_values.shared
        and higher_values.shared_value = lower_values.shared_value
        and higher_values.fan_id > lower_values.fan_id
        and higher_values.first_name_spelling is distinct from lower_values.first_name_spelling
        and higher_values.last_name_spelling = lower_values.last_name_spelling
        -- first names alike (Kari / Karin, a typo): one person the guard may have split
        and jaro_winkler_similarity(higher_values.first_name_spelling, lower_values.first_name_spelling) >= margins.first_name_similarity
    group by lower_values.fan_id, higher_values.fan_id

),

household_split as (

    select
        least(lower_key, higher_key) as record_a,
        greatest(lower_key, higher_key) as record_b,
        'household_split' as reason,
        match_rule,
        cast(null as double) as score,
        cast(null as double) as min_similarity,
        case when lower_key < higher_key then lower_values else higher_values end as values_a,
        case when lower_key < higher_key then higher_values else lower_values end as values_b,

    from household_pairs

),

-- (3) A weak link whose two ends no path of exact links (of up to three links) joins: that
-- one fuzzy comparison, or one rule the seed marks for review, alone makes them one fan, as
-- far as the neighbourhood shows.
-- the links made on alike, not equal, names (score below 1) or by a rule marked for review,
-- that hold inside one fan (a different-fan override may have cut some)
similar_links as (

    select
        edges.from_number,
        edges.to_number,
        edges.from_key,
        edges.to_key,
        edges.match_rule,
        rules.min_similarity,
        from_records.fan_id,

    from edges
    inner join rules
        on rules.match_rule = edges.match_rule
    inner join keyed as from_records
        on from_records.record_number = edges.from_number
    inner join keyed as to_records
        on to_records.record_number = edges.to_number
    where from_records.fan_id = to_records.fan_id
        and ((edges.score < 1 and not rules.ignores_names) or rules.review)

),

exact_links as (

    select
        links.from_number,
        links.to_number,

    from (
        select edges.from_number, edges.to_number, case when rules.ignores_names then 1.0 else edges.score end as score, rules.review from edges
        inner join rules
            on rules.match_rule = edges.match_rule
        union all
        select from_number, to_number, 1.0 as score, false as review from overrides
        where decision = 'same'
    ) as links
    inner join keyed as from_records
        on from_records.record_number = links.from_number
    inner join keyed as to_records
        on to_records.record_number = links.to_number
    semi join similar_links
        on similar_links.fan_id = from_records.fan_id
    where from_records.fan_id = to_records.fan_id
        and links.score = 1
        and not links.review

),

exact_neighbours as (

    select from_number as record_number, to_number as neighbour_number from exact_links
    union all
    select to_number as record_number, from_number as neighbour_number from exact_links

),

-- each end of a similarity link with the records one exact link away
near_ends as (

    select from_number as end_number, from_number as near_number from similar_links
    union
    select to_number as end_number, to_number as near_number from similar_links
    union
    select similar_links.from_number as end_number, exact_neighbours.neighbour_number as near_number
    from similar_links
    inner join exact_neighbours
        on exact_neighbours.record_number = similar_links.from_number
    union
    select similar_links.to_number as end_number, exact_neighbours.neighbour_number as near_number
    from similar_links
    inner join exact_neighbours
        on exact_neighbours.record_number = similar_links.to_number

),

-- similarity links whose ends are joined by exact links too: the same record near both ends,
-- or an exact link between a record near one and a record near the other (paths of up to three)
backed_links as (

    select distinct
        similar_links.from_number,
        similar_links.to_number,

    from similar_links
    inner join near_ends as from_near
        on from_near.end_number = similar_links.from_number
    inner join near_ends as to_near
        on to_near.end_number = similar_links.to_number
    left join exact_neighbours
        on exact_neighbours.record_number = from_near.near_number
        and exact_neighbours.neighbour_number = to_near.near_number
    where from_near.near_number = to_near.near_number
        or exact_neighbours.record_number is not null

),

weak_link as (

    select
        least(similar_links.from_key, similar_links.to_key) as record_a,
        greatest(similar_links.from_key, similar_links.to_key) as record_b,
        'weak_link' as reason,
        similar_links.match_rule,
        jaro_winkler_similarity(records_a.last_name_spelling, records_b.last_name_spelling) as score,
        similar_links.min_similarity,
        -- what else each side has, to tell a namesake from the same fan
        concat_ws('; ',
            'last name ' || records_a.last_name_spelling, 'birth date ' || records_a.birth_date_key,
            'phone ' || records_a.phone_key, 'email ' || records_a.email, 'address ' || records_a.address_key
        ) as values_a,
        concat_ws('; ',
            'last name ' || records_b.last_name_spelling, 'birth date ' || records_b.birth_date_key,
            'phone ' || records_b.phone_key, 'email ' || records_b.email, 'address ' || records_b.address_key
        ) as values_b,

    from similar_links
    anti join backed_links
        on backed_links.from_number = similar_links.from_number
        and backed_links.to_number = similar_links.to_number
    inner join records as records_a
        on records_a.record_key = least(similar_links.from_key, similar_links.to_key)
    inner join records as records_b
        on records_b.record_key = greatest(similar_links.from_key, similar_links.to_key)

),

-- (4) Decisions that name a record the warehouse does not have (a typo, or a record since removed)
override_not_applied as (

    select
        settled.record_key_a as record_a,
        settled.record_key_b as record_b,
        'override_not_applied' as reason,
        'override' as match_rule,
        cast(null as double) as score,
        cast(null as double) as min_similarity,
        'line ' || settled.line_number || ': ' || settled.decision as values_a,
        concat_ws(', ',
            case when records_a.record_key is null then settled.record_key_a || ' is unknown' end,
            case when records_b.record_key is null then settled.record_key_b || ' is unknown' end
        ) as values_b,

    from settled
    left join records as records_a
        on records_a.record_key = settled.record_key_a
    left join records as records_b
        on records_b.record_key = settled.record_key_b
    where records_a.record_key is null
        or records_b.record_key is null

),

candidates as (

    select * from near_similarity
    union all
    select * from household_split
    union all
    select * from weak_link

),

final as (

    select
        candidates.record_a,
        candidates.record_b,
        candidates.reason,
        candidates.match_rule,
        candidates.score,
        candidates.min_similarity,
        candidates.values_a,
        candidates.values_b,
        clusters_a.fan_id as fan_id_a,
        clusters_b.fan_id as fan_id_b,

    from candidates
    inner join clusters as clusters_a
        on clusters_a.record_key = candidates.record_a
    inner join clusters as clusters_b
        on clusters_b.record_key = candidates.record_b
    anti join settled
        on settled.record_key_a = candidates.record_a
        and settled.record_key_b = candidates.record_b

    union all

    select
        record_a,
        record_b,
        reason,
        match_rule,
        score,
        min_similarity,
        values_a,
        values_b,
        null as fan_id_a,
        null as fan_id_b,

    from override_not_applied

)

select * from final
