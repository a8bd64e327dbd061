-- materialized: view
-- rows_of: intermediate.int_identity_clusters system || ':' || record_id
-- description: One row per source record linked to a fan: every ticketing user and member and every engagement customer profile and person, exactly once. match_rule is how the record's strongest link was made: override (an analyst said so in the identity overrides file), external_id (an engagement identity whose externalId is a ticketing user's id), customer_profile (a customer profile and its people), model_v<version> (the identity model of that version, meta.identity_models; why: marts.fan_identity_evidence), or unmatched for a fan of one record. A view: four columns of int_identity_clusters, cheap to read, so a build that changes fans does not write every record's row a second time.
-- test: unique(system, record_id)
-- test: not_null(fan_id, system, record_id, match_rule)
-- test: accepted_values(system: ticketing_user, ticketing_member, engagement_customer_profile, engagement_person)
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
