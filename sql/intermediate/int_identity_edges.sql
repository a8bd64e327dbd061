-- materialized: incremental
-- unique_key: from_key, to_key
-- incremental_delete: rowid in (select rowid from intermediate.int_identity_edges where from_number in (select unnest(list(record_number)) from (select record_number from intermediate.int_identity_records where changed_at > coalesce(macros.model_built_at('intermediate.int_identity_edges'), '-infinity') union all select record_number from intermediate.int_identity_record_changes where changed_at > coalesce(macros.model_built_at('intermediate.int_identity_edges'), '-infinity') union all select ends.number from (select from_number as number from intermediate.int_identity_edges union all select to_number from intermediate.int_identity_edges) as ends anti join intermediate.int_identity_records as records on records.record_number = ends.number)) or to_number in (select unnest(list(record_number)) from (select record_number from intermediate.int_identity_records where changed_at > coalesce(macros.model_built_at('intermediate.int_identity_edges'), '-infinity') union all select record_number from intermediate.int_identity_record_changes where changed_at > coalesce(macros.model_built_at('intermediate.int_identity_edges'), '-infinity') union all select ends.number from (select from_number as number from intermediate.int_identity_edges union all select to_number from intermediate.int_identity_edges) as ends anti join intermediate.int_identity_records as records on records.record_number = ends.number)) or (rule_rank = 3 and (from_number, to_number) in (select macros.record_number(from_key), macros.record_number(to_key) from intermediate.int_identity_ambiguous_links)))
-- description: One row per pair of records identity resolution linked, and how (match_rule): the hard links, external_id (an engagement person whose externalId, trimmed, is a whole number equal to the id of a ticketing user, on any network, unless their last names differ) and customer_profile (a customer profile and each of its people), and the identity model's links (int_identity_pairs, is_link; match_rule model_v<version>) but those of a record that cannot be told whose it is (int_identity_ambiguous_links). rule_rank orders them strongest first (1 external_id, 2 customer_profile, 3 the model; an analyst's override is 0), score is the model's match probability (1 for a hard link). from is the smaller record key. Incremental: a link depends on its two records alone (a customer profile's, on its group's records), its pair's score and whether the pair is ambiguous, so a build computes again only the links of records int_identity_records computed since its last build (a record new or changed, and every record of a customer profile group that gained or lost one) or whose pairs int_identity_pairs scored again since (int_identity_record_changes), deletes those of records gone, and of the other pairs it deletes the model's links now ambiguous and adds those no longer ambiguous (a pair linked but absent here).
-- compression: from_key (fsst), to_key (fsst), match_rule (dictionary)
-- test: not_null(from_number, to_number, from_key, to_key, match_rule, rule_rank, score)
-- test: unique(from_key, to_key)
-- test: relationships(from_key -> intermediate.int_identity_records.record_key)
-- test: relationships(to_key -> intermediate.int_identity_records.record_key)

with

-- The records whose links this build computes again: those int_identity_records computed since
-- this model's last build (a record new or changed, and every record of a customer profile
-- group one of those is or was in, or that lost one: int_identity_records computes them all)
-- and those whose pairs int_identity_pairs scored again since (int_identity_record_changes).
-- Every record in a first build and --full-refresh, which drop the conditions below that read
-- this model (a record gone has no links left to compute: incremental_delete deletes its rows).
changed as (

    select record_number from intermediate.int_identity_records
    where changed_at > coalesce(macros.model_built_at('intermediate.int_identity_edges'), '-infinity')
    union
    select record_number from intermediate.int_identity_record_changes
    where changed_at > coalesce(macros.model_built_at('intermediate.int_identity_edges'), '-infinity')

),

-- the changed records' rows, found by number and read by row id (filtered by number, DuckDB
-- read every column of every record)
changed_records as (

    select * from intermediate.int_identity_records
    where rowid in (
        select unnest(list(rowid)) from intermediate.int_identity_records
        -- the changed numbers as a list unnested, which DuckDB takes for few (as a subquery, it
        -- hashed every record's number)
        where record_number in (select unnest(list(record_number)) from changed)
    )

),

-- The people and users an external link of a changed record can join: the changed ones, the
-- people naming a changed user and the users a changed person names, read by row id (every
-- person and user in a first build and --full-refresh).
people as not materialized (

    select * from intermediate.int_identity_records
    where system = 'engagement_person'
        and rowid in (
            select unnest(list(rowid)) from intermediate.int_identity_records
            where system = 'engagement_person'
                and (
                    record_number in (select unnest(list(record_number)) from changed)
                    or external_user_id in (select unnest(list(record_id)) from changed_records where system = 'ticketing_user')
                    or not exists (select 1 from intermediate.int_identity_edges)
                )
        )

),

users as not materialized (

    select * from intermediate.int_identity_records
    where system = 'ticketing_user'
        and rowid in (
            select unnest(list(rowid)) from intermediate.int_identity_records
            where system = 'ticketing_user'
                and (
                    record_number in (select unnest(list(record_number)) from changed)
                    or record_id in (select unnest(list(external_user_id)) from changed_records where system = 'engagement_person')
                    or not exists (select 1 from intermediate.int_identity_edges)
                )
        )

),

-- the records of the customer profile groups a changed record is in, read by row id (every
-- group's in a first build and --full-refresh): a group's links are its smallest record key's
-- to each other record
grouped as not materialized (

    select record_key, entity_key from intermediate.int_identity_records
    where customer_profile_id is not null
        and rowid in (
            select unnest(list(rowid)) from intermediate.int_identity_records
            where customer_profile_id in (select unnest(list(customer_profile_id)) from changed_records)
                or not exists (select 1 from intermediate.int_identity_edges)
        )

),

-- The model's links of a changed record, and those this model left out as ambiguous that no
-- longer are: a pair linked but absent here, which only a pair ambiguous at the last build is
-- (found by number; those ambiguous now are left out below). Every link in a first build and
-- --full-refresh.
pairs as (

    select * from intermediate.int_identity_pairs
    where is_link
        and rowid in (
            select unnest(list(rowid)) from intermediate.int_identity_pairs
            where from_number in (select unnest(list(record_number)) from changed)
                or to_number in (select unnest(list(record_number)) from changed)
            union all
            select unnest(list(linked.rowid)) from intermediate.int_identity_pairs as linked
            anti join intermediate.int_identity_edges as edges
                on edges.from_number = linked.from_number
                and edges.to_number = linked.to_number
            where linked.is_link
        )

),

ambiguous as (

    select * from intermediate.int_identity_ambiguous_links

),

-- An identity whose externalId is a ticketing user's id names that user (docs/decisions.md
-- "Hard links"), unless their last names differ: a system numbering its own records may reuse
-- a user's id by chance. Not different: one missing, a word in common (either way round), or
-- alike (Jaro-Winkler at least 0.85 and at most two edits: a slip, a marriage's second name).
external_links as (

    select
        least(people.record_key, users.record_key) as from_key,
        greatest(people.record_key, users.record_key) as to_key,
        'external_id' as match_rule,
        1 as rule_rank,

    from people
    inner join users
        on users.record_id = people.external_user_id
    where people.last_name_spelling is null
        or users.last_name_spelling is null
        or list_has_any(people.last_name_tokens, users.last_name_tokens)
        or (
            list_has_any(people.first_name_tokens, users.last_name_tokens)
            and list_has_any(people.last_name_tokens, users.first_name_tokens)
        )
        or (
            jaro_winkler_similarity(people.last_name_spelling, users.last_name_spelling) >= 0.85
            and damerau_levenshtein(people.last_name_spelling, users.last_name_spelling) <= 2
        )

),

-- A customer profile and its people are one person: each record of the group linked to the
-- group's smallest record key (the profile's, unless it is gone).
profile_links as (

    select
        min(record_key) over (partition by entity_key) as from_key,
        record_key as to_key,
        'customer_profile' as match_rule,
        2 as rule_rank,

    from grouped
    qualify from_key <> to_key

),

model_links as (

    select
        pairs.from_key,
        pairs.to_key,
        'model_v' || pairs.model_version as match_rule,
        3 as rule_rank,
        pairs.match_probability as score,

    from pairs
    anti join ambiguous
        on ambiguous.from_key = pairs.from_key
        and ambiguous.to_key = pairs.to_key

),

-- A pair linked twice (a profile's identity and its externalId's user, say) keeps its strongest
-- link: the hard links, then the profiles' links that are no external link, then the model's
-- that are neither. Each kind names a pair once (a record has one profile group, an identity one
-- externalId, and the model scores a pair once), so leaving out what a stronger kind links gives
-- what a grouping of every link by its pair gave, without hashing half a million pairs of keys
-- (a fifth of the model).
profile_only_links as (

    select profile_links.*
    from profile_links
    anti join external_links
        on external_links.from_key = profile_links.from_key
        and external_links.to_key = profile_links.to_key

),

model_only_links as (

    select model_links.*
    from model_links
    anti join external_links
        on external_links.from_key = model_links.from_key
        and external_links.to_key = model_links.to_key
    anti join profile_links
        on profile_links.from_key = model_links.from_key
        and profile_links.to_key = model_links.to_key

),

final as (

    select
        macros.record_number(from_key) as from_number,
        macros.record_number(to_key) as to_number,
        from_key,
        to_key,
        match_rule,
        rule_rank,
        score,

    from (
        select *, 1.0 as score from external_links
        union all
        select *, 1.0 as score from profile_only_links
        union all
        select * from model_only_links
    ) as links

)

select * from final
