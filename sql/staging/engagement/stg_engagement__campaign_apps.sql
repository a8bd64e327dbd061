-- materialized: view
-- description: One row per campaign app (campaign), typed.
-- test: unique(campaign_app_id)
-- test: not_null(campaign_app_id)
-- test[warn]: accepted_values(status: planning, ready, running, ended, archived)

with

source as (

    select * from raw.engagement_campaign_apps

),

renamed as (

    select
        -- ids
        cast(id as bigint) as campaign_app_id,
        guid,
        campaignAppTypeId as campaign_app_type_id,
        try_cast(campaignAppTemplateId as bigint) as campaign_app_template_id,
        try_cast(smartLinkId as bigint) as smart_link_id,
        try_cast(facebookAppId as bigint) as facebook_app_id,
        try_cast(ownerActorId as bigint) as owner_actor_id,
        tenantId as tenant_id,

        -- description
        name as campaign_app_name,
        _type as campaign_type,
        subtype,
        visualType as visual_type,
        language as language_code,
        shareLinkUrl as share_link_url,
        try_cast(links -> '$.campaignAppAuthenticationOptions' as bigint[]) as authentication_option_ids,

        -- state
        status,
        isValid as is_valid,
        isRemoved as is_removed,
        isDisabled as is_disabled,
        version,
        try_cast(fromDateTime as timestamptz) as starts_at,
        try_cast(toDateTime as timestamptz) as ends_at,
        try_cast(createdDateTime as timestamptz) as created_at,
        try_cast(updatedDateTime as timestamptz) as updated_at,
        try_cast(createdById as bigint) as created_by_id,
        try_cast(updatedById as bigint) as updated_by_id,
        -- set when a complete snapshot no longer had the record (removed upstream)
        _vanished_at as vanished_at,
        _extracted_at,

    from source

)

select * from renamed
