-- description: One row per member category (the API's category id and name; members without one under a null category): members, those with an unlimited pool, and over the members with a limited pool their pool totals, use and pool_utilization = sum of ticket_pool_used / sum of ticket_pool_total; members near their pool limit (member_utilization.is_near_pool_limit) and members who never used their pool (has_never_used_pool).
-- test: unique(member_category_id)
-- test: not_null(members, unlimited_members, limited_members, members_near_limit, members_never_used)

with

member_utilization as (

    select * from marts.member_utilization

),

final as (

    select
        member_category_id,
        -- the name most recently sent for the category
        arg_max(member_category_name, updated_at) as member_category_name,
        count(*) as members,
        count(*) filter (where is_unlimited) as unlimited_members,
        count(*) filter (where not is_unlimited) as limited_members,
        sum(ticket_pool_total) as ticket_pool_total,
        sum(ticket_pool_used) filter (where not is_unlimited) as ticket_pool_used,
        sum(ticket_pool_used) filter (where not is_unlimited)
            / nullif(sum(ticket_pool_total), 0) as pool_utilization,
        count(*) filter (where is_near_pool_limit) as members_near_limit,
        count(*) filter (where has_never_used_pool) as members_never_used,
        count(*) filter (where has_never_used_pool) / count(*) as never_used_share,
        max(near_limit_share) as near_limit_share,

    from member_utilization
    group by member_category_id

)

select * from final
