-- materialized: incremental
-- unique_key: fan_id
-- incremental_delete: fan_id in (select fan_id from macros.fans_dropped('intermediate.int_fan_changes'))
-- lineage_columns: changed_at
-- description: One row per fan (int_identity_clusters) and when a build last saw a change in what the fan-level incremental models read of it (changed_at): its records or what they hold (int_fan_contacts' changed_at: its signature covers each record's key, system, link rule and contact fields, so a record that moves stamps the fan it left and the one it joined, and a new fan is stamped), a ticketing permission of one of its accounts, an engagement consent of one of its profiles, loaded since this model's last build (macros.loaded_since: by the load ledger, so a run extracted earlier and loaded later still counts; a consent flagged vanished counts by the snapshot that flagged it). int_ticketing_consent_events, int_engagement_consent_events and int_fan_consents compute again the fans stamped since their own last build and delete theirs and the fans gone; the consent mapping, which they all read, builds them in full instead, and so does a changed consent text (int_engagement_consent_texts: every run reads the texts again, and a text renamed, enabled or disabled changes what every consent given under it means). Fans gone are deleted here too (macros.fans_dropped: looked for only when the row counts say some are). Its first build (and --full-refresh) stamps every fan; see docs/decisions.md.
-- test: unique(fan_id)
-- test: not_null(fan_id, changed_at)

with

clusters as (

    select * from intermediate.int_identity_clusters

),

-- the consents loaded or vanished since this model's last build, found before they are joined:
-- one condition with both, DuckDB joined every consent to its fan first
changed_consents as (

    select customer_profile_id from staging.stg_engagement__consents
    where _extracted_at in (select extracted_at from macros.loaded_since('engagement', 'consents', 'intermediate.int_fan_changes'))

    union all

    select customer_profile_id from staging.stg_engagement__consents
    where vanished_at in (select extracted_at from macros.loaded_since('engagement', 'consents', 'intermediate.int_fan_changes'))

),

-- the fans a change since this model's last build touches
changed_fans as (

    select fan_id from intermediate.int_fan_contacts
    where changed_at > coalesce(macros.model_built_at('intermediate.int_fan_changes'), '-infinity')

    union

    select clusters.fan_id
    from staging.stg_ticketing__user_permissions as permissions
    inner join clusters
        on clusters.system = 'ticketing_user'
        and clusters.record_id = cast(permissions.user_id as varchar)
    where permissions._extracted_at in (select extracted_at from macros.loaded_since('ticketing', 'user_permissions', 'intermediate.int_fan_changes'))

    union

    select clusters.fan_id
    from changed_consents
    inner join clusters
        on clusters.system = 'engagement_customer_profile'
        and clusters.record_id = cast(changed_consents.customer_profile_id as varchar)

),

final as (

    select distinct
        fan_id,
        now() as changed_at,

    from clusters
    -- the first build (and --full-refresh) drops this condition, which reads this table: every fan
    where fan_id in (select fan_id from changed_fans)
        or not exists (select 1 from intermediate.int_fan_changes)

)

select * from final
