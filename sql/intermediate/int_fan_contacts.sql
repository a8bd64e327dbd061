-- materialized: incremental
-- unique_key: fan_id
-- incremental_delete: fan_id not in (select fan_id from intermediate.int_identity_clusters)
-- description: One row per fan (int_identity_clusters): the contact details and names most of its records agree on, its linked records per system and the weakest rule holding it together; what marts.dim_fan takes from identity resolution alone, kept apart so that a load touching only tickets, merchandise, consents or memberships does not compute it again. Incremental: contact_signature sums a hash of each of the fan's records as read here, so only fans whose records or their fields changed are computed again (of the fans whose records int_identity_clusters or int_identity_records computed since this model's last build, changed_at), and fans gone are deleted; changed_at says when a build last computed the fan (int_fan_changes reads it).
-- personal: first_name (name), last_name (name), email (email), phone_e164 (phone), birth_date (birth_date)
-- test: unique(fan_id)
-- test: not_null(fan_id, record_count, contact_signature)

with

clusters as (

    select * from intermediate.int_identity_clusters

),

-- The fans whose records a build computed since this model's last build (the changed_at of
-- their rows in int_identity_clusters and int_identity_records): a record that moved, changed
-- its rule or its values, or left a fan (every record of its component is computed again) was
-- computed since, so only these fans can have another signature (one of every fan's records cost
-- most of a quiet build's 0.4 s here). The clusters' rows found by their stamp and read by row id:
-- a merge appends the rows it writes, so DuckDB reads the last row groups alone.
computed_fans as (

    select fan_id from intermediate.int_identity_clusters
    where rowid in (
        select unnest(list(rowid)) from intermediate.int_identity_clusters
        where changed_at > coalesce(macros.model_built_at('intermediate.int_fan_contacts'), '-infinity')
    )

    union

    select fan_id from intermediate.int_identity_clusters
    where record_key in (
        select unnest(list(record_key)) from intermediate.int_identity_records
        where changed_at > coalesce(macros.model_built_at('intermediate.int_fan_contacts'), '-infinity')
    )

),

-- their records' fans and rules; every record's in a first build and --full-refresh, which drop
-- this condition
computed_clusters as (

    select fan_id, record_key, match_rule, rule_rank from clusters
    where fan_id in (
        select fan_id from computed_fans
        where exists (select 1 from intermediate.int_fan_contacts)
    )

),

fan_records as (

    select
        clusters.fan_id,
        clusters.match_rule,
        clusters.rule_rank,
        -- only what a fan's row is made of: the records' other columns (name tokens, counts)
        -- would be carried through the signatures for nothing
        records.record_key,
        records.record_id,
        records.system,
        records.email,
        records.phone_e164,
        records.birth_date,
        records.first_name,
        records.last_name,
        -- whose contact details win a tie: the ticketing account, then the platform profile
        case records.system
            when 'ticketing_user' then 1
            when 'engagement_customer_profile' then 2
            when 'engagement_person' then 3
            else 4
        end as system_priority,

    from computed_clusters as clusters
    inner join intermediate.int_identity_records as records
        on records.record_key = clusters.record_key
    -- their records alone, read by row id (joined to every record, DuckDB read all 613k)
    where records.rowid in (
        select unnest(list(rowid)) from intermediate.int_identity_records
        where record_key in (select record_key from computed_clusters)
            and exists (select 1 from intermediate.int_fan_contacts)
    )

),

-- All a fan's row is made of: its records and what is read of them, one hash each, summed so
-- their order does not matter.
fan_signatures as (

    select
        fan_id,
        sum(hash(record_key, record_id, system, match_rule, rule_rank, email, phone_e164, birth_date, first_name, last_name)) as contact_signature,

    from fan_records
    group by fan_id

),

-- Fans new or changed since the last build: a small change of users, members and profiles
-- computes only the fans it touches again. The first build (and --full-refresh) drops the
-- condition that reads this table, so every fan counts as changed.
changed_fans as (

    select fan_id, contact_signature from fan_signatures
    -- not those whose stored row has this signature: the stored rows of the computed fans alone,
    -- as a list unnested, which DuckDB takes for few (a NOT EXISTS hashed every stored row)
    where fan_id not in (
        select stored.fan_id
        from intermediate.int_fan_contacts as stored
        inner join fan_signatures as computed
            on computed.fan_id = stored.fan_id
            and computed.contact_signature = stored.contact_signature
        where stored.fan_id in (select unnest(list(fan_id)) from fan_signatures)
    )

),

changed_records as (

    select fan_records.*
    from fan_records
    semi join changed_fans
        on changed_fans.fan_id = fan_records.fan_id

),

record_counts as (

    select
        fan_id,
        count(*) as record_count,
        count(*) filter (where system = 'ticketing_user') as ticketing_user_count,
        count(*) filter (where system = 'ticketing_member') as ticketing_member_count,
        count(*) filter (where system = 'engagement_customer_profile') as engagement_customer_profile_count,
        count(*) filter (where system = 'engagement_person') as engagement_person_count,
        -- the oldest account and profile, for joins to either system
        min(cast(record_id as bigint)) filter (where system = 'ticketing_user') as ticketing_user_id,
        min(cast(record_id as bigint)) filter (where system = 'engagement_customer_profile') as customer_profile_id,
        -- the weakest evidence holding the fan together (each record's own link is its
        -- strongest); unmatched for a fan of one record
        arg_max(match_rule, rule_rank) as weakest_match_rule,

    from changed_records
    group by fan_id

),

-- The value most of a fan's records agree on; ties go to the higher-priority system.
best_emails as (

    select
        fan_id,
        email,

    from changed_records
    where email is not null
    group by fan_id, email
    qualify row_number() over (partition by fan_id order by count(*) desc, min(system_priority), email) = 1

),

best_phones as (

    select
        fan_id,
        phone_e164,

    from changed_records
    where phone_e164 is not null
    group by fan_id, phone_e164
    qualify row_number() over (partition by fan_id order by count(*) desc, min(system_priority), phone_e164) = 1

),

best_birth_dates as (

    select
        fan_id,
        birth_date,

    from changed_records
    where birth_date is not null
    group by fan_id, birth_date
    qualify row_number() over (partition by fan_id order by count(*) desc, min(system_priority), birth_date) = 1

),

-- names as one record wrote them, so first and last name belong together
best_names as (

    select
        fan_id,
        first_name,
        last_name,

    from changed_records
    where first_name is not null
    qualify row_number() over (
        partition by fan_id
        order by last_name is null, system_priority, record_key
    ) = 1

),

final as (

    select
        record_counts.fan_id,
        best_names.first_name,
        best_names.last_name,
        best_emails.email,
        best_phones.phone_e164,
        best_birth_dates.birth_date,
        record_counts.ticketing_user_id,
        record_counts.customer_profile_id,
        record_counts.record_count,
        record_counts.ticketing_user_count,
        record_counts.ticketing_member_count,
        record_counts.engagement_customer_profile_count,
        record_counts.engagement_person_count,
        record_counts.weakest_match_rule,
        changed_fans.contact_signature,
        now() as changed_at,

    from record_counts
    inner join changed_fans
        on changed_fans.fan_id = record_counts.fan_id
    left join best_names
        on best_names.fan_id = record_counts.fan_id
    left join best_emails
        on best_emails.fan_id = record_counts.fan_id
    left join best_phones
        on best_phones.fan_id = record_counts.fan_id
    left join best_birth_dates
        on best_birth_dates.fan_id = record_counts.fan_id

)

select * from final
