-- materialized: view
-- description: One row per link identity resolution found between two records: the rule (seeds.identity_match_rules, or override for an analyst's same-fan decision), its score (int_identity_edges: the lower of the first- and last-name Jaro-Winkler similarities, 1 when equal or missing, and for an override), the values each record brought to the comparison, and whether the link joins the two in one fan (is_joined false: a different-fan override cut it).
-- test: not_null(fan_id, from_key, to_key, match_rule, rule_rank, score, compared_fields, is_joined)
-- test: relationships(fan_id -> marts.dim_fan.fan_id)

with

rule_edges as (

    select * from intermediate.int_identity_edges

),

overrides as (

    select * from intermediate.int_identity_overrides

),

records as (

    select * from intermediate.int_identity_records

),

clusters as (

    select * from intermediate.int_identity_clusters

),

rules as (

    select * from seeds.identity_match_rules

),

-- What each rule compares: its block and every attribute it does not ignore (seeds.identity_match_rules).
rule_fields as (

    select
        match_rule,
        case block_on
            when 'name_birth_date' then ['name pair', 'birth date']
            when 'first_name_birth_date' then ['first name', 'birth date']
            when 'last_name_birth_date' then ['last name', 'birth date']
            when 'name' then ['name pair']
            when 'name_address' then ['name pair', 'address']
            else [replace(block_on, '_', ' ')]
        end as block_fields,
        list_filter(
            [
                case when first_name <> 'any' then 'first name' end,
                case when last_name <> 'any' then 'last name' end,
                case when birth_date <> 'any' then 'birth date' end,
                case when email <> 'any' then 'email' end,
                case when phone <> 'any' then 'phone' end
            ],
            field -> field is not null and not list_contains(block_fields, field)
        ) as attribute_fields,
        list_concat(block_fields, attribute_fields) as fields,

    from rules
    union all by name
    select 'override' as match_rule, ['record'] as fields

),

links as (

    select from_key, to_key, match_rule, rule_rank, score, cast(null as varchar) as note from rule_edges
    union all
    select from_key, to_key, match_rule, rule_rank, 1.0 as score, 'line ' || line_number || coalesce(': ' || nullif(note, ''), '') as note from overrides
    where decision = 'same'

),

-- every key a rule may compare, one map per record
record_values as (

    select
        record_key,
        last_name_spelling,
        map {
            'record': record_key,
            'external id': cast(external_user_id as varchar),
            'customer profile': cast(customer_profile_id as varchar),
            'email': email,
            'phone': phone_key,
            'name pair': name_pair_spelling,
            'first name': first_name_spelling,
            'last name': last_name_spelling,
            'birth date': cast(birth_date_key as varchar),
            'address': address_key
        } as record_values,

    from records

),

-- both records' values as the rule compares them, "field value; field value", from then to
described as (

    select
        links.*,
        coalesce(rule_fields.fields, ['record', 'external id', 'customer profile', 'email', 'phone', 'name pair', 'first name', 'last name', 'birth date', 'address']) as fields,
        from_values.last_name_spelling as from_last_name,
        to_values.last_name_spelling as to_last_name,
        list_transform(
            [from_values.record_values, to_values.record_values],
            side -> array_to_string(list_filter(list_transform(fields, field -> field || ' ' || side[field]), part -> part is not null), '; ')
        ) as compared_values,

    from links
    inner join record_values as from_values
        on from_values.record_key = links.from_key
    inner join record_values as to_values
        on to_values.record_key = links.to_key
    left join rule_fields
        on rule_fields.match_rule = links.match_rule

),

final as (

    select
        from_clusters.fan_id,
        described.from_key,
        described.to_key,
        described.match_rule,
        described.rule_rank,
        described.score,
        rules.min_similarity,
        array_to_string(described.fields, ', ') as compared_fields,
        described.compared_values[1] as from_values,
        described.compared_values[2] as to_values,
        described.note,
        from_clusters.fan_id = to_clusters.fan_id as is_joined,

    from described
    inner join clusters as from_clusters
        on from_clusters.record_key = described.from_key
    inner join clusters as to_clusters
        on to_clusters.record_key = described.to_key
    left join rules
        on rules.match_rule = described.match_rule

)

select * from final
