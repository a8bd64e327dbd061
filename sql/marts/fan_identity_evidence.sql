-- materialized: view
-- description: One row per link identity resolution made between two records, with why: match_rule (external_id or customer_profile, a hard link; model_v<version>, the identity model; override, an analyst's same-fan decision) and, for the model's links, a waterfall in numbers: the prior's weight (log2 of the odds that two random records are one person), each comparison's level and weight (log2 m/u; for an agreeing name, log2 m over the name's share of people: a rare name weighs more), their total (match_weight) and the match probability. A level of missing (a value absent on a side) weighs 0. from_values and to_values show what each record brought; is_joined is false where a different-fan override cut the link. How the weights were learned: meta.identity_model_levels; docs/decisions.md "How fans are linked".
-- not_personal: first_name_level, last_name_level, birth_date_level, email_level

with

edges as (

    select * from intermediate.int_identity_edges

),

overrides as (

    select * from intermediate.int_identity_overrides

),

pairs as (

    select * from intermediate.int_identity_pairs

),

-- one row: each comparison's level names by level index (position level_index + 1)
level_names as (

    select * from macros.identity_level_names()

),

links as (

    select from_number, to_number, from_key, to_key, match_rule, rule_rank, score, cast(null as varchar) as note from edges
    union all
    select from_number, to_number, from_key, to_key, match_rule, rule_rank, 1.0 as score, 'line ' || line_number || coalesce(': ' || nullif(note, ''), '') as note from overrides
    where decision = 'same'

),

-- the model's links carry the key of their scored pair; a hard link or an override none.
-- A key, not a condition on the link in the join: DuckDB joins on keys alone by hash, and a
-- condition on one side beside them made the join compare every link with every pair
keyed_links as (

    select
        *,
        case when match_rule like 'model_v%' then from_key end as pair_from_key,

    from links

),

final as (

    select
        from_clusters.fan_id,
        links.from_key,
        links.to_key,
        links.match_rule,
        links.rule_rank,
        pairs.blocking_rule,
        pairs.prior_weight,
        level_names.first_name[pairs.first_name_level + 1] as first_name_level,
        pairs.first_name_weight,
        level_names.last_name[pairs.last_name_level + 1] as last_name_level,
        pairs.last_name_weight,
        level_names.birth_date[pairs.birth_date_level + 1] as birth_date_level,
        pairs.birth_date_weight,
        level_names.email[pairs.email_level + 1] as email_level,
        pairs.email_weight,
        level_names.phone[pairs.phone_level + 1] as phone_level,
        pairs.phone_weight,
        level_names.address[pairs.address_level + 1] as address_level,
        pairs.address_weight,
        pairs.is_crossed as names_crossed,
        pairs.match_weight,
        coalesce(pairs.match_probability, links.score) as match_probability,
        -- what each record brought: the values the model compares, as it compares them; built
        -- here, after the joins, so a reader that does not select them (a count, a test of
        -- other columns) does not build them for every record
        macros.identity_record_values(from_records) as from_values,
        macros.identity_record_values(to_records) as to_values,
        links.note,
        from_clusters.fan_id = to_clusters.fan_id as is_joined,

    -- records and clusters are read twice, each side of a link, straight from their tables: a
    -- view does not keep a CTE's "not materialized" (DuckDB stores the view's SQL without it),
    -- and a CTE read twice is then copied whole before the joins. Joined on record numbers,
    -- not keys: on 500k links the four joins on text took three times as long (every reader
    -- of this view pays them: two data tests and the identity-model report's two queries)
    from keyed_links as links
    left join pairs
        on pairs.from_key = links.pair_from_key
        and pairs.to_key = links.to_key
    cross join level_names
    inner join intermediate.int_identity_records as from_records
        on from_records.record_number = links.from_number
    inner join intermediate.int_identity_records as to_records
        on to_records.record_number = links.to_number
    inner join (select *, macros.record_number(record_key) as record_number from intermediate.int_identity_clusters) as from_clusters
        on from_clusters.record_number = links.from_number
    inner join (select *, macros.record_number(record_key) as record_number from intermediate.int_identity_clusters) as to_clusters
        on to_clusters.record_number = links.to_number

)

select * from final
