-- materialized: view
-- description: One row per link identity resolution made between two records, with why: match_rule (external_id or customer_profile, a hard link; model_v<version>, the identity model; override, an analyst's same-fan decision) and, for the model's links, a waterfall in numbers: the prior's weight (log2 of the odds that two random records are one person), each comparison's level and weight (log2 m/u; for an agreeing name, log2 m over the name's share of people: a rare name weighs more), their total (match_weight) and the match probability. A level of missing (a value absent on a side) weighs 0. from_values and to_values show what each record brought; is_joined is false where a different-fan override cut the link. How the weights were learned: meta.identity_model_levels; docs/decisions.md "How fans are linked". marts.fan_identity_link_weights holds the same links without the records' values, for readers that only count or weigh them.
-- not_personal: first_name_level, last_name_level, birth_date_level, email_level

with

links as (

    select * from marts.fan_identity_link_weights

),

final as (

    select
        links.fan_id,
        links.from_key,
        links.to_key,
        links.match_rule,
        links.rule_rank,
        links.blocking_rule,
        links.prior_weight,
        links.first_name_level,
        links.first_name_weight,
        links.last_name_level,
        links.last_name_weight,
        links.birth_date_level,
        links.birth_date_weight,
        links.email_level,
        links.email_weight,
        links.phone_level,
        links.phone_weight,
        links.address_level,
        links.address_weight,
        links.names_crossed,
        links.match_weight,
        links.match_probability,
        -- what each record brought: the values the model compares, as it compares them; built
        -- here, after the joins, so a reader that does not select them (a count, a test of
        -- other columns) does not build them for every record
        macros.identity_record_values(from_records) as from_values,
        macros.identity_record_values(to_records) as to_values,
        links.note,
        links.is_joined,

    -- records are read twice, each side of a link, straight from their table (a CTE read twice
    -- is copied whole before the joins), and joined on record numbers, not keys: integers join
    -- faster than text
    from links
    inner join intermediate.int_identity_records as from_records
        on from_records.record_number = macros.record_number(links.from_key)
    inner join intermediate.int_identity_records as to_records
        on to_records.record_number = macros.record_number(links.to_key)

)

select * from final
