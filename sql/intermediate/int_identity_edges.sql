-- materialized: table
-- unique_key: from_key, to_key
-- description: One row per pair of records identity resolution linked, and how (match_rule): the hard links, external_id (an engagement person whose externalId, trimmed, is a whole number equal to the id of a ticketing user, on any network, unless their last names differ) and customer_profile (a customer profile and each of its people), and the identity model's links (int_identity_pairs, is_link; match_rule model_v<version>) but those of a record that cannot be told whose it is (int_identity_ambiguous_links). rule_rank orders them strongest first (1 external_id, 2 customer_profile, 3 the model; an analyst's override is 0), score is the model's match probability (1 for a hard link). from is the smaller record key; written as a difference, since a build changes few links.
-- test: not_null(from_number, to_number, from_key, to_key, match_rule, rule_rank, score)
-- test: unique(from_key, to_key)
-- test: relationships(from_key -> intermediate.int_identity_records.record_key)
-- test: relationships(to_key -> intermediate.int_identity_records.record_key)

with

records as not materialized (

    select * from intermediate.int_identity_records

),

pairs as (

    select * from intermediate.int_identity_pairs
    where is_link

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

    from records as people
    inner join records as users
        on users.system = 'ticketing_user'
        and users.record_id = people.external_user_id
    where people.system = 'engagement_person'
        and (
            people.last_name_spelling is null
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

    from records
    where customer_profile_id is not null
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
