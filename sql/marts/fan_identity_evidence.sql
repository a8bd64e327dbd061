-- materialized: view
-- description: One row per link identity resolution found between two records: the rule (seeds.identity_match_rules, or override for an analyst's same-fan decision), its score (the similarity of the last names for a similarity rule, 1 for an exact one), the values each record brought to the comparison, and whether the link joins the two in one fan (is_joined false: a different-fan override cut it).
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

-- What each rule compares (int_identity_edges): a block value and the keys that split blocks.
-- A rule not listed here shows every key.
rule_fields as (

    select * from (
        values
            ('override', ['record']),
            ('external_id', ['external id', 'record']),
            ('customer_profile', ['customer profile']),
            ('email_name', ['email', 'first name', 'birth date', 'phone']),
            ('phone_name', ['phone', 'first name', 'birth date']),
            ('name_birth_date', ['name pair', 'birth date', 'phone']),
            ('similar_name_birth_date', ['last name', 'first name', 'birth date', 'phone'])
    ) as rule_fields (match_rule, fields)

),

links as (

    select from_key, to_key, match_rule, rule_rank, cast(null as varchar) as note from rule_edges
    union all
    select from_key, to_key, match_rule, rule_rank, 'line ' || line_number || coalesce(': ' || nullif(note, ''), '') as note from overrides
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
            'birth date': cast(birth_date_key as varchar)
        } as record_values,

    from records

),

-- both records' values as the rule compares them, "field value; field value", from then to
described as (

    select
        links.*,
        coalesce(rule_fields.fields, ['record', 'external id', 'customer profile', 'email', 'phone', 'name pair', 'first name', 'last name', 'birth date']) as fields,
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
        case
            when rules.min_similarity is not null
                then jaro_winkler_similarity(described.from_last_name, described.to_last_name)
            else 1.0
        end as score,
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
