-- materialized: incremental
-- unique_key: event_key
-- incremental_delete: fan_id in (select fan_id from intermediate.int_fan_changes where changed_at > coalesce(macros.model_built_at('intermediate.int_engagement_consent_events'), '-infinity')) or fan_id in (select fan_id from intermediate.int_engagement_consent_events anti join intermediate.int_fan_contacts using (fan_id))
-- full_rebuild_on: intermediate.int_club_consent_meanings, intermediate.int_engagement_consent_texts
-- description: One row per engagement consent decision of a fan and the purpose and channel its text means: a consent given (at its creation) and, when revoked, its revocation (at revokedDateTime, else its creation); a consent given under a consent text the club has disabled is no grant and left out, its revocation still counts. The engagement half of int_consent_events, kept apart so that a load of one system computes only its own events. A consent is identified as the engagement API identifies it, by its consent text's id and text, and means what int_club_consent_meanings says of both: mapping_state mapped (one row per channel it covers), unmapped (the text id is not in the mapping, or the text was not loaded) or contradicting (the id is, with another text); the last two are one row with no purpose or channel, which int_fan_consents reads safely (a revocation blocks the fan) and tests/consents_mapped lists. A consent removed upstream (vanished) is no event; tests/books_consents counts every exclusion. event_key names the row: record, grant or revocation, purpose and channel. Incremental: a build computes the events of the fans int_fan_changes stamped since its last build (every record of theirs) and deletes theirs and those of fans gone; a changed mapping or consent text (int_engagement_consent_texts, read again every run, changed only when a text is) builds it in full, and int_fan_consents after it (see docs/decisions.md).
-- test: unique(event_key)
-- test: not_null(event_key, fan_id, record_id, consent_id, mapping_state, is_granted, is_current_state, source_system)
-- test: accepted_values(mapping_state: mapped, unmapped, contradicting)

with

-- The records of the fans changed since this model's last build; every record in its first
-- build and --full-refresh (which drop the condition that reads this table).
clusters as (

    select * from intermediate.int_identity_clusters
    where fan_id in (select fan_id from intermediate.int_fan_changes where changed_at > coalesce(macros.model_built_at('intermediate.int_engagement_consent_events'), '-infinity'))
        or not exists (select 1 from intermediate.int_engagement_consent_events)

),

-- only the consents of those records' profiles, as a list unnested (DuckDB hashes the few profiles
-- of a quiet build instead of joining every consent to them)
consents as (

    select * from staging.stg_engagement__consents
    where vanished_at is null
        and cast(customer_profile_id as varchar) in (select unnest(list(record_id)) from clusters where system = 'engagement_customer_profile')

),

consent_texts as (

    select * from intermediate.int_engagement_consent_texts

),

meanings as (

    select * from intermediate.int_club_consent_meanings
    where system = 'engagement'

),

known_ids as (

    select distinct consent_id from meanings

),

engagement_consents as (

    select
        clusters.fan_id,
        cast(consents.consent_id as varchar) as record_id,
        consents.consent_text_id as consent_id,
        consent_texts.consent_text as consent_name,
        case
            when meanings.consent_id is not null then 'mapped'
            when known_ids.consent_id is not null and consent_texts.consent_text is not null then 'contradicting'
            else 'unmapped'
        end as mapping_state,
        meanings.purpose,
        meanings.channel,
        consents.is_revoked,
        consents.created_at,
        coalesce(consents.revoked_at, consents.created_at) as revoked_at,
        -- the club no longer stands behind a disabled text, so agreeing to it grants nothing
        consent_texts.is_enabled is distinct from false as is_text_enabled,

    from consents
    inner join clusters
        on clusters.system = 'engagement_customer_profile'
        and clusters.record_id = cast(consents.customer_profile_id as varchar)
    left join consent_texts
        on consent_texts.consent_text_id = consents.consent_text_id
    left join meanings
        on meanings.consent_id = consents.consent_text_id
        and meanings.consent_name = consent_texts.consent_text
    left join known_ids
        on known_ids.consent_id = consents.consent_text_id

),

-- A consent is a grant when given and a withdrawal when revoked; both are decisions.
engagement_grants as (

    select
        fan_id,
        record_id,
        consent_id,
        consent_name,
        mapping_state,
        purpose,
        channel,
        true as is_granted,
        created_at as decided_at,
        'engagement' as source_system,
        not is_revoked as is_current_state,
        record_id || '|grant|' || coalesce(purpose, '-') || '|' || coalesce(channel, '-') as event_key,

    from engagement_consents
    where is_text_enabled

),

engagement_revocations as (

    select
        fan_id,
        record_id,
        consent_id,
        consent_name,
        mapping_state,
        purpose,
        channel,
        false as is_granted,
        revoked_at as decided_at,
        'engagement' as source_system,
        true as is_current_state,
        record_id || '|revocation|' || coalesce(purpose, '-') || '|' || coalesce(channel, '-') as event_key,

    from engagement_consents
    where is_revoked

),

final as (

    select * from engagement_grants
    union all
    select * from engagement_revocations

)

select * from final
