-- materialized: table
-- description: One row per link between two records that identity resolution accepted, with the rule that made it. The rules, their strength (rule_rank), block caps and similarity thresholds are data: seeds.identity_match_rules. Rules by strength: external_id, customer_profile, email_name, phone_name, name_birth_date, similar_name_birth_date.
-- test: not_null(from_number, to_number, from_key, to_key, match_rule, rule_rank)
-- test: accepted_values(match_rule: external_id, customer_profile, email_name, phone_name, name_birth_date, similar_name_birth_date)
-- test: relationships(from_key -> intermediate.int_identity_records.record_key)
-- test: relationships(to_key -> intermediate.int_identity_records.record_key)

with

records as (

    select * from intermediate.int_identity_records

),

rules as (

    select * from seeds.identity_match_rules

),

-- (1) An ApiApp identity whose externalId is a ticketing user id (see seeds.engagement_api_apps).
external_id_edges as (

    select
        people.record_number as from_number,
        ticketing_users.record_number as to_number,
        'external_id' as match_rule,

    from records as people
    inner join records as ticketing_users
        on ticketing_users.system = 'ticketing_user'
        and ticketing_users.record_id = cast(people.external_user_id as varchar)
    where people.system = 'engagement_person'

),

-- (2) The people of a customer profile are that profile's person.
customer_profile_edges as (

    select
        people.record_number as from_number,
        customer_profiles.record_number as to_number,
        'customer_profile' as match_rule,

    from records as people
    inner join records as customer_profiles
        on customer_profiles.system = 'engagement_customer_profile'
        and customer_profiles.customer_profile_id = people.customer_profile_id
    where people.system = 'engagement_person'

),

-- (3)-(5) Records sharing a value (a block) are one person only when nothing tells them
-- apart. A block is split by first name (transliterated, so "Bjoern" and "Bjørn" agree:
-- households are guarded by it), then birth date, then phone, where its records
-- disagree: household mailboxes carry several first names, namesakes at one mail domain
-- several birth dates or phones. A record lacking the attribute a block is split on
-- matches nobody there, since it cannot tell whose it is; where all agree it joins them.
block_members as (

    select
        'email_name' as match_rule,
        email as block_value,
        record_number,
        first_name_spelling as first_name_key,
        birth_date_key,
        phone_key,

    from records
    where email is not null

    union all

    select
        'phone_name' as match_rule,
        phone_key as block_value,
        record_number,
        first_name_spelling as first_name_key,
        birth_date_key,
        phone_key,

    from records
    where phone_key is not null

    union all

    select
        'name_birth_date' as match_rule,
        name_pair_spelling || ' ' || birth_date_key as block_value,
        record_number,
        first_name_spelling as first_name_key,
        birth_date_key,
        phone_key,

    from records
    where name_pair_spelling is not null
        and birth_date_key is not null

),

blocks as (

    select
        block_members.match_rule,
        block_members.block_value,
        count(distinct block_members.first_name_key) as first_name_count,
        max(block_members.first_name_key) as first_name_key,

    from block_members
    inner join rules
        on rules.match_rule = block_members.match_rule
    group by block_members.match_rule, block_members.block_value
    -- a value on many records is a placeholder (noreply@, 00000000), not a person
    having count(*) <= any_value(rules.block_cap)

),

split_by_first_name as (

    select
        block_members.*,
        coalesce(
            block_members.first_name_key,
            case when blocks.first_name_count <= 1 then coalesce(blocks.first_name_key, '') end
        ) as first_name_group,

    from block_members
    inner join blocks
        on blocks.match_rule = block_members.match_rule
        and blocks.block_value = block_members.block_value

),

first_name_groups as (

    select
        match_rule,
        block_value,
        first_name_group,
        count(distinct birth_date_key) as birth_date_count,
        max(birth_date_key) as birth_date_key,

    from split_by_first_name
    where first_name_group is not null
    group by match_rule, block_value, first_name_group

),

split_by_birth_date as (

    select
        split_by_first_name.*,
        coalesce(
            cast(split_by_first_name.birth_date_key as varchar),
            case when first_name_groups.birth_date_count <= 1 then coalesce(cast(first_name_groups.birth_date_key as varchar), '') end
        ) as birth_date_group,

    from split_by_first_name
    inner join first_name_groups
        on first_name_groups.match_rule = split_by_first_name.match_rule
        and first_name_groups.block_value = split_by_first_name.block_value
        and first_name_groups.first_name_group = split_by_first_name.first_name_group

),

birth_date_groups as (

    select
        match_rule,
        block_value,
        first_name_group,
        birth_date_group,
        count(distinct phone_key) as phone_count,
        max(phone_key) as phone_key,

    from split_by_birth_date
    where birth_date_group is not null
    group by match_rule, block_value, first_name_group, birth_date_group

),

split_by_phone as (

    select
        split_by_birth_date.*,
        coalesce(
            split_by_birth_date.phone_key,
            case when birth_date_groups.phone_count <= 1 then coalesce(birth_date_groups.phone_key, '') end
        ) as phone_group,

    from split_by_birth_date
    inner join birth_date_groups
        on birth_date_groups.match_rule = split_by_birth_date.match_rule
        and birth_date_groups.block_value = split_by_birth_date.block_value
        and birth_date_groups.first_name_group = split_by_birth_date.first_name_group
        and birth_date_groups.birth_date_group = split_by_birth_date.birth_date_group

),

-- Each group is linked as a star to its smallest record: n - 1 edges instead of n²/2.
anchored as (

    select
        match_rule,
        record_number,
        min(record_number) over (
            partition by match_rule, block_value, first_name_group, birth_date_group, phone_group
        ) as anchor_number,

    from split_by_phone
    where phone_group is not null

),

value_edges as (

    select
        record_number as from_number,
        anchor_number as to_number,
        match_rule,

    from anchored
    where record_number <> anchor_number

),

-- (6) A one-letter slip in a last name (Hansen / Hnasen): same birth date and first name
-- (transliterated), last names alike by the rule's similarity and one edit apart. The block
-- (birth date and first name) keeps the pairs compared near-linear in the number of records;
-- a block above its cap is left alone. Phones that both exist and differ keep them apart.
similar_candidates as (

    select
        record_number,
        birth_date_key,
        first_name_spelling,
        last_name_spelling,
        phone_key,
        count(*) over (partition by birth_date_key, first_name_spelling) as block_size,

    from records
    where birth_date_key is not null
        and first_name_spelling is not null
        and last_name_spelling is not null

),

similar_edges as (

    select
        lower_records.record_number as from_number,
        higher_records.record_number as to_number,
        rules.match_rule,

    from similar_candidates as lower_records
    inner join similar_candidates as higher_records
        on higher_records.birth_date_key = lower_records.birth_date_key
        and higher_records.first_name_spelling = lower_records.first_name_spelling
        and higher_records.record_number > lower_records.record_number
    inner join rules
        on rules.match_rule = 'similar_name_birth_date'
    where lower_records.block_size <= rules.block_cap
        and higher_records.last_name_spelling <> lower_records.last_name_spelling
        and jaro_winkler_similarity(higher_records.last_name_spelling, lower_records.last_name_spelling) >= rules.min_similarity
        and damerau_levenshtein(higher_records.last_name_spelling, lower_records.last_name_spelling) <= 1
        and (
            higher_records.phone_key is null
            or lower_records.phone_key is null
            or higher_records.phone_key = lower_records.phone_key
        )

),

unioned as (

    select * from external_id_edges
    union all
    select * from customer_profile_edges
    union all
    select * from value_edges
    union all
    select * from similar_edges

),

final as (

    select
        unioned.from_number,
        unioned.to_number,
        from_records.record_key as from_key,
        to_records.record_key as to_key,
        unioned.match_rule,
        rules.rule_rank,

    from unioned
    inner join rules
        on rules.match_rule = unioned.match_rule
    inner join records as from_records
        on from_records.record_number = unioned.from_number
    inner join records as to_records
        on to_records.record_number = unioned.to_number

)

select * from final
