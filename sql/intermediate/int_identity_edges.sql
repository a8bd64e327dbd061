-- materialized: table
-- description: One row per pair of records that identity resolution linked, with the strongest rule that accepted them, its score and the values compared. The rules are data (seeds.identity_match_rules): each names the block it compares within (records sharing a value: an e-mail, a phone, a name and birth date...), the block's cap, and how much each attribute must agree (same, similar, not_different, any) with its similarity thresholds; this one step applies them all. Rules by strength: external_id, customer_profile, email_name, phone_name, name_birth_date, similar_last_name, similar_first_name.
-- test: not_null(from_number, to_number, from_key, to_key, match_rule, rule_rank)
-- test: unique(from_number, to_number)
-- test: accepted_values(match_rule: external_id, customer_profile, email_name, phone_name, name_birth_date, similar_last_name, similar_first_name)
-- test: relationships(from_key -> intermediate.int_identity_records.record_key)
-- test: relationships(to_key -> intermediate.int_identity_records.record_key)

with

records as (

    select * from intermediate.int_identity_records

),

rules as (

    select * from seeds.identity_match_rules

),

-- Every value a record can be blocked on. Only records in one block are ever compared, so
-- the work grows with the blocks' sizes (capped), not with the square of the records.
block_keys as (

    select
        record_number,
        system,
        first_name_spelling,
        birth_date_key,
        email,
        phone_key,
        -- an ApiApp identity and the ticketing user it names meet on the user's id
        case
            when system = 'ticketing_user' then record_id
            else cast(external_user_id as varchar)
        end as external_id,
        cast(customer_profile_id as varchar) as customer_profile,
        name_pair_spelling || ' ' || birth_date_key as name_birth_date,
        first_name_spelling || ' ' || birth_date_key as first_name_birth_date,
        last_name_spelling || ' ' || birth_date_key as last_name_birth_date,
        name_records,

    from records

),

block_members as (

    select
        record_number,
        system,
        first_name_spelling,
        birth_date_key,
        block_on,
        block_value,

    from block_keys
    unpivot (
        block_value for block_on in (
            external_id, customer_profile, email, phone_key as 'phone', name_birth_date, first_name_birth_date, last_name_birth_date
        )
    )
    -- only the blocks some rule compares within, and in them only records whose name is rare
    -- enough for that rule (the pair's name count is the larger of the two): a name too
    -- common for the rule need not be compared at all
    where exists (
        select 1
        from rules
        where rules.block_on = block_on
            and (rules.max_name_records is null or name_records <= rules.max_name_records)
    )

),

-- A value on more records than the rule's cap is a placeholder (noreply@, 00000000), not a
-- person: its block is dropped. How many first names a block holds, and how many birth
-- dates among records of one first name, tell whether a record lacking one can still be
-- told whose it is (see leveled).
blocks as (

    select
        block_members.block_on,
        block_members.block_value,
        count(distinct block_members.first_name_spelling) as first_name_count,

    from block_members
    inner join rules
        on rules.block_on = block_members.block_on
    group by block_members.block_on, block_members.block_value
    having count(*) <= coalesce(min(rules.block_cap), count(*))
        -- an external id pairs an identity with a ticketing user; alone it pairs nothing
        and (block_members.block_on <> 'external_id' or count(distinct block_members.system) > 1)

),

first_name_groups as (

    select
        block_on,
        block_value,
        first_name_spelling,
        count(distinct birth_date_key) as birth_date_count,

    from block_members
    group by all

),

counted_members as (

    select
        block_members.*,
        blocks.first_name_count,
        first_name_groups.birth_date_count,

    from block_members
    inner join blocks
        on blocks.block_on = block_members.block_on
        and blocks.block_value = block_members.block_value
    inner join first_name_groups
        on first_name_groups.block_on = block_members.block_on
        and first_name_groups.block_value = block_members.block_value
        and first_name_groups.first_name_spelling is not distinct from block_members.first_name_spelling

),

-- Each pair once, with every block it shares; a pair sharing several values is compared once.
candidates as (

    select
        lower_members.record_number as from_number,
        higher_members.record_number as to_number,
        list(lower_members.block_on) as shared_blocks,
        max(lower_members.first_name_count) as first_name_count,
        max(greatest(lower_members.birth_date_count, higher_members.birth_date_count)) as birth_date_count,

    from counted_members as lower_members
    inner join counted_members as higher_members
        on higher_members.block_on = lower_members.block_on
        and higher_members.block_value = lower_members.block_value
        and higher_members.record_number > lower_members.record_number
    group by lower_members.record_number, higher_members.record_number

),

-- Each attribute of each candidate pair compared once: equal, missing on a side, or how alike.
compared as (

    select
        candidates.*,
        from_records.record_key as from_key,
        to_records.record_key as to_key,
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
    inner join records as from_records
        on from_records.record_number = candidates.from_number
    inner join records as to_records
        on to_records.record_number = candidates.to_number

),

-- Levels (macros.match_level) under each rule whose block the pair shares; similarity is the
-- rule's threshold. A name or birth date missing on one side is "missing" (nothing against
-- it), except where a shared block holds several first names or birth dates: a record
-- without one cannot be told whose it is there (a household mailbox), so it is "different".
leveled as (

    select
        compared.*,
        rules.match_rule,
        rules.rule_rank,
        macros.match_level(
            compared.first_name_same,
            (compared.from_first_name is null or compared.to_first_name is null) and compared.first_name_count <= 1,
            compared.first_name_similarity >= rules.min_similarity and compared.first_name_edits <= rules.max_edits
        ) as first_name_level,
        macros.match_level(
            compared.last_name_same,
            compared.from_last_name is null or compared.to_last_name is null,
            compared.last_name_similarity >= rules.min_similarity and compared.last_name_edits <= rules.max_edits
        ) as last_name_level,
        macros.match_level(
            compared.from_birth_date = compared.to_birth_date,
            (compared.from_birth_date is null or compared.to_birth_date is null) and compared.birth_date_count <= 1,
            false
        ) as birth_date_level,
        macros.match_level(compared.from_email = compared.to_email, compared.from_email is null or compared.to_email is null, false) as email_level,
        macros.match_level(compared.from_phone = compared.to_phone, compared.from_phone is null or compared.to_phone is null, false) as phone_level,
        rules.first_name as first_name_condition,
        rules.last_name as last_name_condition,
        rules.birth_date as birth_date_condition,
        rules.email as email_condition,
        rules.phone as phone_condition,
        rules.max_name_records,

    from compared
    inner join rules
        on rules.block_on in compared.shared_blocks

),

accepted as (

    select
        *,
        -- how alike the names are (1 when equal, missing names count as alike): what a reviewer weighs
        least(
            case when first_name_same then 1 else coalesce(first_name_similarity, 1) end,
            case when last_name_same then 1 else coalesce(last_name_similarity, 1) end
        ) as score,

    from leveled
    where first_name_level >= macros.match_condition(first_name_condition)
        and last_name_level >= macros.match_condition(last_name_condition)
        and birth_date_level >= macros.match_condition(birth_date_condition)
        and email_level >= macros.match_condition(email_condition)
        and phone_level >= macros.match_condition(phone_condition)
        -- a common name and one birth date are no evidence of one person
        and (max_name_records is null or name_records <= max_name_records)

),

-- one link per pair: the strongest rule that accepted it
final as (

    select
        from_number,
        to_number,
        from_key,
        to_key,
        match_rule,
        rule_rank,
        score,
        from_first_name,
        to_first_name,
        from_last_name,
        to_last_name,
        from_birth_date,
        to_birth_date,
        from_email,
        to_email,
        from_phone,
        to_phone,

    from accepted
    qualify row_number() over (partition by from_number, to_number order by rule_rank) = 1

)

select * from final
