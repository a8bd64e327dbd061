-- description: The last build moved no more of the records' fan_id than the setting identityChurnWarnShare allows (meta.identity_fan_churn, moved_share over warn_share): a fan_id is a key exports, CRM lists and saved queries hold, so a build that regroups many fans is worth a look. Expected once after fanlake identity train --apply (model_applied), which listed the records it moves.
-- severity: warn

with

churn as (

    select * from meta.identity_fan_churn

),

last_build as (

    select *
    from churn
    qualify built_at = max(built_at) over ()

),

final as (

    select
        build_id,
        model_version,
        model_applied,
        records_before,
        records_moved,
        round(moved_share, 4) as moved_share,
        warn_share,
        fans_merged,
        fans_split,

    from last_build
    where moved_share > warn_share

)

select * from final
