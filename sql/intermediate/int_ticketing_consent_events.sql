-- materialized: incremental
-- unique_key: event_key
-- incremental_delete: fan_id in (select fan_id from intermediate.int_fan_changes where changed_at > coalesce(macros.model_built_at('intermediate.int_ticketing_consent_events'), '-infinity')) or fan_id in (select fan_id from intermediate.int_ticketing_consent_events anti join intermediate.int_fan_contacts using (fan_id))
-- full_rebuild_on: intermediate.int_club_consent_meanings
-- description: One row per ticketing permission answer of a fan and the purpose and channel its consent means (the API keeps only the latest answer per user and consent, dated by its last update); the ticketing half of int_consent_events, kept apart so that a load of one system computes only its own events. A consent is identified as the ticketing API identifies it, by id_consent_basic and name, and means what int_club_consent_meanings says of both: mapping_state mapped (one row per channel it covers), unmapped (its id is not in the mapping) or contradicting (its id is, under another name: the id may mean another channel at this club); the last two are one row with no purpose or channel, which int_fan_consents reads safely (a refusal blocks the fan) and tests/consents_mapped lists. An answer without a decision or of a user not loaded is no event; tests/books_consents counts both. event_key names the row: record, purpose and channel. Incremental: a build computes the events of the fans int_fan_changes stamped since its last build (every record of theirs) and deletes theirs and those of fans gone; a changed mapping builds it in full (see docs/decisions.md).
-- test: unique(event_key)
-- test: not_null(event_key, fan_id, record_id, consent_id, mapping_state, is_granted, is_current_state, source_system)
-- test: accepted_values(mapping_state: mapped, unmapped, contradicting)

with

-- The user accounts of the fans changed since this model's last build; every account in its
-- first build and --full-refresh (which drop the condition that reads this table). By the
-- account's id: a join on the record's text cast every permission's user id to text.
ticketing_users as (

    select * from intermediate.int_ticketing_user_fans
    where fan_id in (select fan_id from intermediate.int_fan_changes where changed_at > coalesce(macros.model_built_at('intermediate.int_ticketing_consent_events'), '-infinity'))
        or not exists (select 1 from intermediate.int_ticketing_consent_events)

),

-- only the permissions of those accounts, as a list unnested: DuckDB hashes the few accounts of a
-- quiet build and leaves the rest of the 600k permissions before the join (joined to the accounts,
-- every permission was read into the join first)
user_permissions as (

    select * from staging.stg_ticketing__user_permissions
    where user_id in (select unnest(list(user_id)) from ticketing_users)

),

meanings as (

    select * from intermediate.int_club_consent_meanings
    where system = 'ticketing'

),

known_ids as (

    select distinct consent_id from meanings

),

answers as (

    select
        ticketing_users.fan_id,
        cast(user_permissions.user_id as varchar) || ':' || cast(user_permissions.consent_type_id as varchar) as record_id,
        user_permissions.consent_type_id as consent_id,
        user_permissions.consent_name,
        user_permissions.has_consented as is_granted,
        user_permissions.updated_at as decided_at,

    from user_permissions
    inner join ticketing_users
        on ticketing_users.user_id = user_permissions.user_id
    where user_permissions.has_consented is not null

),

final as (

    select
        answers.fan_id,
        answers.record_id,
        answers.consent_id,
        answers.consent_name,
        case
            when meanings.consent_id is not null then 'mapped'
            when known_ids.consent_id is not null then 'contradicting'
            else 'unmapped'
        end as mapping_state,
        meanings.purpose,
        meanings.channel,
        answers.is_granted,
        answers.decided_at,
        'ticketing' as source_system,
        true as is_current_state,
        answers.record_id || '|' || coalesce(meanings.purpose, '-') || '|' || coalesce(meanings.channel, '-') as event_key,

    from answers
    left join meanings
        on meanings.consent_id = answers.consent_id
        and meanings.consent_name = answers.consent_name
    left join known_ids
        on known_ids.consent_id = answers.consent_id

)

select * from final
