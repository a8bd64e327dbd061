-- description: One row per ticketing user account and the fan it belongs to (int_identity_clusters): how tickets and merchandise, which name accounts, count for fans.
-- test: unique(user_id)
-- test: not_null(user_id, fan_id)

with

clusters as (

    select * from intermediate.int_identity_clusters

),

final as (

    select
        fan_id,
        cast(record_id as bigint) as user_id,

    from clusters
    where system = 'ticketing_user'

)

select * from final
