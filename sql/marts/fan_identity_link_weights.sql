-- materialized: view
-- description: One row per link identity resolution made between two records, with how it was made and weighed: the columns of marts.fan_identity_evidence, which explains them, but what each record brought (from_values, to_values). A reader that counts or weighs links, such as the identity-model report, reads this one and does not join every link to both of its records for values it does not read.
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

-- the model's links carry the number of their scored pair's record; a hard link or an override
-- none. A key, not a condition on the link in the join: DuckDB joins on keys alone by hash, and
-- a condition on one side beside them made the join compare every link with every pair
keyed_links as (

    select
        *,
        case when match_rule like 'model_v%' then from_number end as pair_from_number,

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
        links.note,
        from_clusters.fan_id = to_clusters.fan_id as is_joined,

    -- clusters are read twice, each side of a link, straight from their table: a view does not
    -- keep a CTE's "not materialized" (DuckDB stores the view's SQL without it), and a CTE read
    -- twice is then copied whole before the joins. Joined on record numbers, not keys: on 500k
    -- links the joins on text took three times as long
    from keyed_links as links
    left join pairs
        on pairs.from_number = links.pair_from_number
        and pairs.to_number = links.to_number
    cross join level_names
    inner join (select *, macros.record_number(record_key) as record_number from intermediate.int_identity_clusters) as from_clusters
        on from_clusters.record_number = links.from_number
    inner join (select *, macros.record_number(record_key) as record_number from intermediate.int_identity_clusters) as to_clusters
        on to_clusters.record_number = links.to_number

)

select * from final
