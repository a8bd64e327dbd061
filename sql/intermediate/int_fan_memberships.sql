-- materialized: table
-- unique_key: fan_id
-- description: One row per fan with a member entry: the member category of the entry updated last (ties: the smaller member id). What marts.dim_fan takes from the members, kept apart so that a load that reads members again unchanged, or changes only their used pool, stops here instead of rebuilding dim_fan.
-- test: unique(fan_id)
-- test: not_null(fan_id)

with

clusters as (

    select * from intermediate.int_identity_clusters

),

members as (

    select * from staging.stg_ticketing__members

),

final as (

    select
        clusters.fan_id,
        members.member_category_id,
        members.member_category_name,

    from clusters
    inner join members
        on cast(members.member_id as varchar) = clusters.record_id
    where clusters.system = 'ticketing_member'
    qualify row_number() over (
        partition by clusters.fan_id
        order by members.updated_at desc nulls last, members.member_id
    ) = 1

)

select * from final
