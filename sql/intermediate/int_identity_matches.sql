-- materialized: incremental
-- unique_key: record_key
-- incremental_delete: record_key not in (select record_key from intermediate.int_identity_records)
-- description: One row per record: the records with a larger key identity resolution linked it to (links: the other record's key, the rank of the strongest rule that accepted the pair (each rule has a rank of its own; int_identity_edges names the rule) and its score; each link is kept once, on its smaller record key's row), with what the links were computed from (match_signature, blocks). The rules are data (seeds.identity_match_rules): each names the block it compares within (records sharing a value: an e-mail, a phone, a name and birth date...), the block's cap, and how much each attribute must agree (same, similar, not_different, any) with its similarity thresholds; this one step applies them all. Incremental: only records in a block that a changed, new or removed record is or was in are compared again; see docs/decisions.md.
-- test: unique(record_key)
-- test: not_null(record_key, match_signature, blocks, links)

with

-- each record with how common its name is (rules draw lines on it)
records as (

    select
        records.*,
        name_counts.name_records,
        name_counts.name_system_records,
        name_counts.name_expected_records,

    from intermediate.int_identity_records as records
    left join intermediate.int_identity_name_counts as name_counts
        on name_counts.first_name_spelling = records.first_name_spelling
        and name_counts.last_name_spelling = records.last_name_spelling

),

rules as (

    select * from seeds.identity_match_rules

),

-- Every value a record can be blocked on. Only records in one block are ever compared, so
-- the work grows with the blocks' sizes (capped), not with the square of the records.
block_keys as (

    select
        record_key,
        record_number,
        system,
        first_name_spelling,
        last_name_spelling,
        first_name_tokens,
        last_name_tokens,
        birth_date_key,
        email,
        phone_key,
        name_records,
        name_system_records,
        name_expected_records,
        -- what a block asks of its members (whether their first names, their phones agree; which
        -- system they are from), once per record, as integers: they group and compare faster
        -- than text
        macros.block_key(first_name_spelling) as first_name_hash,
        macros.block_key(phone_key) as phone_hash,
        system = 'ticketing_user' as is_ticketing_user,
        -- blocked on as hashes (macros.block_key): integers group, join and store smaller than
        -- text; a record is in the blocks it has a value for
        list_filter([
            -- an ApiApp identity and the ticketing user it names meet on the user's id
            {
                'block_on': 'external_id',
                'block_value': macros.block_key(case when system = 'ticketing_user' then record_id else cast(external_user_id as varchar) end)
            },
            {'block_on': 'customer_profile', 'block_value': macros.block_key(cast(customer_profile_id as varchar))},
            {'block_on': 'email', 'block_value': macros.block_key(email)},
            {'block_on': 'phone', 'block_value': macros.block_key(phone_key)},
            {'block_on': 'name_birth_date', 'block_value': macros.block_key(name_pair_spelling || ' ' || birth_date_key)},
            {'block_on': 'first_name_birth_date', 'block_value': macros.block_key(first_name_spelling || ' ' || birth_date_key)},
            {'block_on': 'last_name_birth_date', 'block_value': macros.block_key(last_name_spelling || ' ' || birth_date_key)},
            {'block_on': 'name', 'block_value': macros.block_key(name_pair_spelling)},
            {'block_on': 'name_address', 'block_value': macros.block_key(name_pair_spelling || ' ' || address_key)}
        ], block -> block.block_value is not null) as blocks,

    from records

),

-- the blocks rules compare within, with the smallest cap and the largest name count any allows,
-- and a bit of its own, which stands for it from here on: integers group, sort and join faster
-- than its name, and the blocks a pair shares are one integer (a list per pair cost more; a
-- bigint holds 63 kinds of block, the rules use 9)
block_rules as (

    select
        block_on,
        cast(1 as bigint) << cast(row_number() over (order by block_on) - 1 as integer) as block_bit,
        min(block_cap) as block_cap,
        -- NULL (no limit) wins over any number
        case when count(*) = count(max_name_records) then max(max_name_records) end as max_name_records,
        case when count(*) = count(max_name_system_records) then max(max_name_system_records) end as max_name_system_records,
        case when count(*) = count(max_name_expected_records) then max(max_name_expected_records) end as max_name_expected_records,

    from rules
    group by block_on

),

-- each rule with its block's bit and the least level (macros.match_condition) it demands of
-- each attribute: joined once here, not once per compared pair
rule_levels as (

    select
        rules.rule_rank,
        block_rules.block_bit,
        macros.match_condition(rules.first_name) as first_name_condition,
        macros.match_condition(rules.last_name) as last_name_condition,
        macros.match_condition(rules.birth_date) as birth_date_condition,
        macros.match_condition(rules.email) as email_condition,
        macros.match_condition(rules.phone) as phone_condition,
        rules.min_similarity,
        rules.max_edits,
        rules.max_name_records,
        rules.max_name_system_records,
        rules.max_name_expected_records,

    from rules
    inner join block_rules
        on block_rules.block_on = rules.block_on

),

block_members as (

    select
        block_keys.record_number,
        block_keys.is_ticketing_user,
        block_keys.first_name_hash,
        block_keys.birth_date_key,
        block_keys.phone_hash,
        block_keys.block.block_on,
        block_keys.block.block_value,
        block_rules.block_bit,
        block_rules.block_cap,

    from (
        select * exclude (blocks), unnest(blocks) as block from block_keys
    ) as block_keys
    inner join block_rules
        on block_rules.block_on = block_keys.block.block_on
    where
        -- a name too common for the block's rules need not be compared at all (the pair's name
        -- count is the larger of the two records')
        (block_rules.max_name_records is null or block_keys.name_records <= block_rules.max_name_records)
        and (block_rules.max_name_system_records is null or block_keys.name_system_records <= block_rules.max_name_system_records)
        and (block_rules.max_name_expected_records is null or block_keys.name_expected_records <= block_rules.max_name_expected_records)

),

-- The name counts rules draw a line at (max_name_records, max_name_system_records,
-- max_name_expected_records): all a name's counts tell matching is on which side of each
-- limit they fall.
name_limits as (

    select
        coalesce(list(distinct max_name_records order by max_name_records) filter (where max_name_records is not null), []) as name_limits,
        coalesce(list(distinct max_name_system_records order by max_name_system_records) filter (where max_name_system_records is not null), []) as name_system_limits,
        coalesce(list(distinct max_name_expected_records order by max_name_expected_records) filter (where max_name_expected_records is not null), []) as name_expected_limits,

    from rules

),

-- All a record's links are computed from: its key, match keys, blocks (the postal address
-- enters through its block), the side of each name limit its name falls on (not the counts
-- themselves, or a record going from 57 namesakes to 56, or a word's uses from 90 to 91,
-- would count as changed) and the rules. A signature not stored at the last build means the
-- record is new or changed for matching. Of its blocks only the values are stored, for the
-- next build to find the blocks it was in: a value of one block equal to another's (a last
-- name and birth date that are someone's first name and birth date) only widens what is
-- compared again, and a list of integers writes in half the time of one of structs.
signed as (

    select
        block_keys.record_key,
        block_keys.record_number,
        block_keys.blocks,
        list_transform(block_keys.blocks, block -> block.block_value) as block_values,
        hash(
            block_keys.record_key,
            block_keys.system,
            block_keys.first_name_spelling,
            block_keys.last_name_spelling,
            block_keys.first_name_tokens,
            block_keys.last_name_tokens,
            block_keys.birth_date_key,
            block_keys.email,
            block_keys.phone_key,
            list_transform(name_limits.name_limits, name_limit -> block_keys.name_records <= name_limit),
            list_transform(name_limits.name_system_limits, name_limit -> block_keys.name_system_records <= name_limit),
            list_transform(name_limits.name_expected_limits, name_limit -> block_keys.name_expected_records <= name_limit),
            block_keys.blocks,
            (select hash(list(rules order by rules.rule_rank, rules.match_rule)) from rules as rules)
        ) as match_signature,

    from block_keys
    cross join name_limits

),

-- Records new or changed since the last build. The first build (and --full-refresh) drops
-- the conditions that read this table, so every record counts as changed.
changed as (

    select record_number, blocks from signed
    where not exists (
        select 1 from intermediate.int_identity_matches as stored
        where stored.match_signature = signed.match_signature
    )

),

-- What is compared again: every record of a block that a changed, new or removed record is
-- in now or was in at the last build (its stored blocks), and the changed records. A pair's
-- links depend only on the two records and the members of the blocks they share, so a pair
-- outside these blocks keeps its links.
affected as (

    select signed.record_number
    from signed
    -- one condition, so the first build (and --full-refresh), which drops it since it reads
    -- this model's own table, takes every record without looking each one up
    where signed.record_number in (select record_number from changed)
        or signed.record_number in (
            select block_members.record_number
            from block_members
            where {'block_on': block_members.block_on, 'block_value': block_members.block_value} in (select unnest(blocks) from changed)
                or block_members.block_value in (
                    select unnest(stored.blocks) from intermediate.int_identity_matches as stored
                    where not exists (
                        select 1 from signed
                        where signed.match_signature = stored.match_signature
                    )
                )
        )

),

-- The members of every block an affected record is in. The first build (and --full-refresh)
-- drops this condition with the others that read this model's own table: then every block is
-- in scope, without looking each one up.
block_scope as (

    select * from block_members
    where {'block_on': block_members.block_on, 'block_value': block_members.block_value} in (
            select {'block_on': touched.block_on, 'block_value': touched.block_value}
            from block_members as touched
            semi join affected
                on affected.record_number = touched.record_number
        )
        or not exists (select 1 from intermediate.int_identity_matches)

),

-- The blocks that hold a pair to compare. A value on more records than the rule's cap is a
-- placeholder (noreply@, 00000000), not a person: its block is dropped. Whether a block holds
-- several first names tells whether a record lacking one can still be told whose it is (see
-- leveled). min <> max rather than count(distinct): cheaper, and "more than one" is all
-- that is asked.
blocks as (

    select
        block_bit,
        block_value,
        min(first_name_hash) <> max(first_name_hash) as has_several_first_names,

    from block_scope
    group by block_bit, block_value
    having count(*) between 2 and coalesce(any_value(block_cap), count(*))
        -- an external id pairs an identity with a ticketing user; alone it pairs nothing
        -- (its records are ticketing users and identities, so with a user it holds both: asked
        -- with bool_or, since min(system) <> max(system) on text took a second at scale 10;
        -- the block told by its bit, a grouping key, not by its name carried through)
        and (block_bit is distinct from (select block_bit from block_rules where block_on = 'external_id') or bool_or(is_ticketing_user))

),

-- Whether a block holds several birth dates, or phones, among the records of one first name
-- (father and son of one name in one family mailbox). Only a first name on two or more of a
-- block's records can: grouped, and the few such groups joined back below, this took a third
-- of the time of a window over every member (1.3 s at scale 10).
first_name_groups as (

    select
        block_scope.block_bit,
        block_scope.block_value,
        block_scope.first_name_hash,
        coalesce(min(block_scope.birth_date_key) <> max(block_scope.birth_date_key), false) as has_several_birth_dates,
        coalesce(min(block_scope.phone_hash) <> max(block_scope.phone_hash), false) as has_several_phones,

    from block_scope
    semi join blocks
        on blocks.block_bit = block_scope.block_bit
        and blocks.block_value = block_scope.block_value
    group by block_scope.block_bit, block_scope.block_value, block_scope.first_name_hash
    having count(*) >= 2

),

-- Members of those blocks, with what their block and first name hold.
counted_members as (

    select
        block_scope.record_number,
        block_scope.block_bit,
        block_scope.block_value,
        blocks.has_several_first_names,
        coalesce(first_name_groups.has_several_birth_dates, false) as has_several_birth_dates,
        coalesce(first_name_groups.has_several_phones, false) as has_several_phones,

    from block_scope
    inner join blocks
        on blocks.block_bit = block_scope.block_bit
        and blocks.block_value = block_scope.block_value
    -- records without a first name are one group, as they were one partition of the window
    left join first_name_groups
        on first_name_groups.block_bit = block_scope.block_bit
        and first_name_groups.block_value = block_scope.block_value
        and first_name_groups.first_name_hash is not distinct from block_scope.first_name_hash

),

-- Each pair once, with every block it shares (their bits); a pair sharing several values is
-- compared once.
candidates as (

    select
        lower_members.record_number as from_number,
        higher_members.record_number as to_number,
        bit_or(lower_members.block_bit) as shared_blocks,
        coalesce(bool_or(lower_members.has_several_first_names), false) as has_several_first_names,
        bool_or(lower_members.has_several_birth_dates or higher_members.has_several_birth_dates) as has_several_birth_dates,
        bool_or(lower_members.has_several_phones or higher_members.has_several_phones) as has_several_phones,

    from counted_members as lower_members
    inner join counted_members as higher_members
        on higher_members.block_bit = lower_members.block_bit
        and higher_members.block_value = lower_members.block_value
        and higher_members.record_number > lower_members.record_number
    -- a pair needs an affected end to be compared (the first build drops this condition too)
    where lower_members.record_number in (select record_number from affected)
        or higher_members.record_number in (select record_number from affected)
        or not exists (select 1 from intermediate.int_identity_matches)
    group by lower_members.record_number, higher_members.record_number

),

-- What the pairs compare of each record, and nothing else: both ends of every pair are
-- joined to it, and rows without the record's key and blocks join faster (the join of the
-- higher ends 0.56 -> 0.30 s at scale 10).
compared_values as (

    select
        record_number,
        first_name_spelling,
        last_name_spelling,
        first_name_tokens,
        last_name_tokens,
        birth_date_key,
        email,
        phone_key,
        name_records,
        name_system_records,
        name_expected_records,

    from block_keys

),

-- Each attribute of each candidate pair compared once: equal, missing on a side, or how alike.
compared as (

    select
        candidates.*,
        from_records.first_name_spelling as from_first_name,
        to_records.first_name_spelling as to_first_name,
        from_records.last_name_spelling as from_last_name,
        to_records.last_name_spelling as to_last_name,
        from_records.birth_date_key as from_birth_date,
        to_records.birth_date_key as to_birth_date,
        from_records.email as from_email,
        to_records.email as to_email,
        from_records.phone_key as from_phone,
        to_records.phone_key as to_phone,
        greatest(from_records.name_records, to_records.name_records) as name_records,
        greatest(from_records.name_system_records, to_records.name_system_records) as name_system_records,
        greatest(from_records.name_expected_records, to_records.name_expected_records) as name_expected_records,
        -- first and last name written in each other's fields (a word of each shared crosswise)
        list_has_any(from_records.first_name_tokens, to_records.last_name_tokens)
            and list_has_any(from_records.last_name_tokens, to_records.first_name_tokens) as is_crossed,
        -- a shared given name counts as the same first name, so a middle name in one system does not matter
        coalesce(list_has_any(from_records.first_name_tokens, to_records.first_name_tokens) or is_crossed, false) as first_name_same,
        -- a shared word of the last name too: a member's one name field puts a middle name there ("Kari Marie Hansen")
        coalesce(list_has_any(from_records.last_name_tokens, to_records.last_name_tokens) or is_crossed, false) as last_name_same,
        case when not first_name_same then jaro_winkler_similarity(from_records.first_name_spelling, to_records.first_name_spelling) end as first_name_similarity,
        case when not first_name_same then damerau_levenshtein(from_records.first_name_spelling, to_records.first_name_spelling) end as first_name_edits,
        case when not last_name_same then jaro_winkler_similarity(from_records.last_name_spelling, to_records.last_name_spelling) end as last_name_similarity,
        case when not last_name_same then damerau_levenshtein(from_records.last_name_spelling, to_records.last_name_spelling) end as last_name_edits,

    from candidates
    inner join compared_values as from_records
        on from_records.record_number = candidates.from_number
    inner join compared_values as to_records
        on to_records.record_number = candidates.to_number

),

-- Levels (macros.match_level) under each rule whose block the pair shares; similarity is the
-- rule's threshold. A first name, birth date or phone missing on one side is "missing"
-- (nothing against it), except where a shared block holds several first names, or several
-- birth dates or phones under one first name: a record without one cannot be told whose it
-- is there (a household mailbox, father and son of one name), so it is "different".
leveled as (

    select
        compared.*,
        rule_levels.rule_rank,
        macros.match_level(
            compared.first_name_same,
            (compared.from_first_name is null or compared.to_first_name is null) and not compared.has_several_first_names,
            compared.first_name_similarity >= rule_levels.min_similarity and compared.first_name_edits <= rule_levels.max_edits
        ) as first_name_level,
        macros.match_level(
            compared.last_name_same,
            compared.from_last_name is null or compared.to_last_name is null,
            compared.last_name_similarity >= rule_levels.min_similarity and compared.last_name_edits <= rule_levels.max_edits
        ) as last_name_level,
        macros.match_level(
            compared.from_birth_date = compared.to_birth_date,
            (compared.from_birth_date is null or compared.to_birth_date is null) and not compared.has_several_birth_dates,
            false
        ) as birth_date_level,
        macros.match_level(compared.from_email = compared.to_email, compared.from_email is null or compared.to_email is null, false) as email_level,
        macros.match_level(
            compared.from_phone = compared.to_phone,
            (compared.from_phone is null or compared.to_phone is null) and not compared.has_several_phones,
            false
        ) as phone_level,
        rule_levels.first_name_condition,
        rule_levels.last_name_condition,
        rule_levels.birth_date_condition,
        rule_levels.email_condition,
        rule_levels.phone_condition,
        rule_levels.max_name_records,
        rule_levels.max_name_system_records,
        rule_levels.max_name_expected_records,

    from compared
    inner join rule_levels
        on (compared.shared_blocks & rule_levels.block_bit) <> 0

),

accepted as (

    select
        from_number,
        to_number,
        rule_rank,
        -- how alike the names are (1 when equal, missing names count as alike): what a reviewer weighs
        least(
            case when first_name_same then 1 else coalesce(first_name_similarity, 1) end,
            case when last_name_same then 1 else coalesce(last_name_similarity, 1) end
        ) as score,

    from leveled
    where first_name_level >= first_name_condition
        and last_name_level >= last_name_condition
        and birth_date_level >= birth_date_condition
        and email_level >= email_condition
        and phone_level >= phone_condition
        -- a common name and one birth date are no evidence of one person
        and (max_name_records is null or name_records <= max_name_records)
        -- a name one system holds for two people is no evidence on its own
        and (max_name_system_records is null or name_system_records <= max_name_system_records)
        -- nor a name common enough for two people to carry it by chance
        and (max_name_expected_records is null or name_expected_records <= max_name_expected_records)

),

-- one link per pair: the strongest rule that accepted it, told by its rank (a rule's name,
-- carried to here and stored in every link, cost 0.24 s of a full build at scale 10)
strongest as (

    select
        from_number,
        to_number,
        min(rule_rank) as rule_rank,
        any_value(score) as score,

    from accepted
    group by from_number, to_number

),

-- Each link once, on the row of its smaller record key (record numbers are hashes, so the keys
-- are compared). Both ends of a changed pair are recomputed, so the row that holds a link is
-- always among them.
owned as (

    select
        case when from_records.record_key < to_records.record_key then strongest.from_number else strongest.to_number end as record_number,
        greatest(from_records.record_key, to_records.record_key) as other_key,
        strongest.rule_rank,
        strongest.score,

    from strongest
    inner join block_keys as from_records
        on from_records.record_number = strongest.from_number
    inner join block_keys as to_records
        on to_records.record_number = strongest.to_number

),

linked as (

    select
        owned.record_number,
        -- sorted by the other record's key (the struct's first field); list_sort, because an
        -- ordered aggregate (list(... order by ...)) took most of a full build
        list_sort(list(
            {'other_key': owned.other_key, 'rule_rank': owned.rule_rank, 'score': owned.score}
        )) as links,

    from owned
    group by owned.record_number

),

-- Every affected record with its links (none: an empty list). A record outside the affected
-- ones may own links above (it shares a block with one): they are unchanged, and its row stays
-- as it is. The first build (and --full-refresh) drops this condition with the others that
-- read this model's own table, and takes every record without looking each one up.
final as (

    select
        signed.record_key,
        signed.match_signature,
        signed.block_values as blocks,
        coalesce(linked.links, []) as links,

    from signed
    left join linked
        on linked.record_number = signed.record_number
    where signed.record_number in (select record_number from affected)
        or not exists (select 1 from intermediate.int_identity_matches)

)

select * from final
