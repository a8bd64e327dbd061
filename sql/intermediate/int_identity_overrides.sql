-- materialized: table
-- description: One row per pair of records analysts settled in the identity overrides file (setting FANLAKE_IDENTITY_OVERRIDES, default identity_overrides.csv in the data directory; build reads it into macros.identity_overrides()). decision same: the two are one fan, an edge of rule override, stronger than every rule. decision different: int_identity_clusters keeps them in different fans. Pairs naming a record the warehouse does not have are left out (is_applied false in marts.fan_identity_review).
-- test: not_null(from_number, to_number, from_key, to_key, decision, match_rule, rule_rank)
-- test: accepted_values(decision: same, different)

with

overrides as (

    select * from macros.identity_overrides()

),

records as (

    select * from intermediate.int_identity_records

),

final as (

    select
        records_a.record_number as from_number,
        records_b.record_number as to_number,
        overrides.record_key_a as from_key,
        overrides.record_key_b as to_key,
        overrides.decision,
        overrides.note,
        overrides.line_number,
        -- an analyst's word outranks every link (int_identity_edges ranks from 1)
        'override' as match_rule,
        0 as rule_rank,

    from overrides
    inner join records as records_a
        on records_a.record_key = overrides.record_key_a
    inner join records as records_b
        on records_b.record_key = overrides.record_key_b

)

select * from final
