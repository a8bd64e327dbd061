-- materialized: view
-- description: One row per source record linked to a fan: every ticketing user and member and every engagement customer profile and person, exactly once. match_rule is the strongest rule that linked the record (override: an analyst said so in the identity overrides file; else one of seeds.identity_match_rules: external_id, customer_profile, email_name_birth_date, email_name, phone_name, name_birth_date, similar_last_name, similar_first_name, name_address_birth_date, name_address, unique_name), or unmatched for a fan of one record. A view: four columns of int_identity_clusters, read in about 0.1 s at scale 10, so a build that changes fans does not write its 600k rows a second time (0.5 s).
-- test: unique(system, record_id)
-- test: not_null(fan_id, system, record_id, match_rule)
-- test: accepted_values(system: ticketing_user, ticketing_member, engagement_customer_profile, engagement_person)
-- test: accepted_values(match_rule: override, external_id, customer_profile, email_name_birth_date, email_name, email_full_name, phone_name, name_birth_date, similar_last_name, similar_first_name, name_address_birth_date, name_address, unique_name, unmatched)
-- test: relationships(fan_id -> marts.dim_fan.fan_id)

with

clusters as (

    select * from intermediate.int_identity_clusters

),

final as (

    select
        fan_id,
        system,
        record_id,
        match_rule,

    from clusters

)

select * from final
