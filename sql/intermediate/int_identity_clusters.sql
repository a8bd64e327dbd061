-- materialized: table
-- description: One row per record: its fan, the connected component of int_identity_edges it belongs to, and the strongest rule that linked it. A record that matches nobody is its own fan.
-- test: unique(record_key)
-- test: not_null(record_key, fan_id, cluster_key, match_rule)

with recursive

records as (

    select * from intermediate.int_identity_records

),

edges as (

    select * from intermediate.int_identity_edges

),

-- both directions, so a label flows either way along a link
neighbours as (

    select from_number as record_number, to_number as neighbour_number from edges
    union all
    select to_number as record_number, from_number as neighbour_number from edges

),

-- Label propagation: every linked record starts as its own label and takes the smallest
-- label among itself and its neighbours, until an iteration changes nothing. Each
-- iteration is one hash join over the links; iterations grow with a cluster's diameter
-- (a handful), not with the number of records.
propagation (record_number, cluster_number, iteration, has_changed) as (

    select
        record_number,
        record_number as cluster_number,
        0 as iteration,
        true as has_changed,

    from neighbours
    group by record_number

    union all

    select
        state.record_number,
        least(state.cluster_number, min(neighbour.cluster_number)) as cluster_number,
        state.iteration + 1 as iteration,
        min(neighbour.cluster_number) < state.cluster_number as has_changed,

    from propagation as state
    inner join neighbours
        on neighbours.record_number = state.record_number
    inner join propagation as neighbour
        on neighbour.record_number = neighbours.neighbour_number
    where exists (select 1 from propagation as previous where previous.has_changed)
        -- a safety bound far above any cluster's diameter; were it ever reached, links would
        -- cross clusters, which test/warehouse/identity-resolution.test.ts checks
        and state.iteration < 100
    group by state.record_number, state.cluster_number, state.iteration

),

converged as (

    select
        record_number,
        cluster_number,

    from propagation
    qualify iteration = max(iteration) over ()

),

-- how each record was linked: the strongest rule among its own links
strongest_rules as (

    select
        record_number,
        arg_min(match_rule, rule_rank) as match_rule,
        min(rule_rank) as rule_rank,

    from (
        select from_number as record_number, match_rule, rule_rank from edges
        union all
        select to_number as record_number, match_rule, rule_rank from edges
    ) as record_rules
    group by record_number

),

assigned as (

    select
        records.record_key,
        records.system,
        records.record_id,
        coalesce(cluster_records.record_key, records.record_key) as cluster_key,
        coalesce(strongest_rules.match_rule, 'unmatched') as match_rule,
        coalesce(strongest_rules.rule_rank, 9) as rule_rank,

    from records
    left join converged
        on converged.record_number = records.record_number
    -- record numbers follow record keys, so the smallest number is the smallest key
    left join records as cluster_records
        on cluster_records.record_number = converged.cluster_number
    left join strongest_rules
        on strongest_rules.record_number = records.record_number

),

final as (

    select
        -- Named after the cluster's smallest record key, so a fan keeps its id across builds
        -- as long as that record stays in it; new records joining do not rename it.
        'fan_' || left(md5(cluster_key), 16) as fan_id,
        *,

    from assigned

)

select * from final
