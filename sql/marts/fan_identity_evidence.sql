-- materialized: table
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

-- the values of one record as a rule compares them, "field value; field value"
described as (

    select
        links.from_key,
        links.to_key,
        links.match_rule,
        coalesce(rule_fields.fields, ['record', 'external id', 'customer profile', 'email', 'phone', 'name pair', 'first name', 'last name', 'birth date']) as fields,
        sides.side,
        concat_ws(
            '; ',
            case when list_contains(fields, 'record') then 'record ' || records.record_key end,
            case when list_contains(fields, 'external id') then 'external id ' || records.external_user_id end,
            case when list_contains(fields, 'customer profile') then 'customer profile ' || records.customer_profile_id end,
            case when list_contains(fields, 'email') then 'email ' || records.email end,
            case when list_contains(fields, 'phone') then 'phone ' || records.phone_key end,
            case when list_contains(fields, 'name pair') then 'name pair ' || records.name_pair_spelling end,
            case when list_contains(fields, 'first name') then 'first name ' || records.first_name_spelling end,
            case when list_contains(fields, 'last name') then 'last name ' || records.last_name_spelling end,
            case when list_contains(fields, 'birth date') then 'birth date ' || records.birth_date_key end
        ) as compared_values,
        records.last_name_spelling,

    from links
    cross join (values ('from'), ('to')) as sides (side)
    inner join records
        on records.record_key = case sides.side when 'from' then links.from_key else links.to_key end
    left join rule_fields
        on rule_fields.match_rule = links.match_rule

),

final as (

    select
        from_clusters.fan_id,
        links.from_key,
        links.to_key,
        links.match_rule,
        links.rule_rank,
        case
            when rules.min_similarity is not null
                then jaro_winkler_similarity(from_values.last_name_spelling, to_values.last_name_spelling)
            else 1.0
        end as score,
        rules.min_similarity,
        array_to_string(from_values.fields, ', ') as compared_fields,
        from_values.compared_values as from_values,
        to_values.compared_values as to_values,
        links.note,
        from_clusters.fan_id = to_clusters.fan_id as is_joined,

    from links
    inner join described as from_values
        on from_values.from_key = links.from_key
        and from_values.to_key = links.to_key
        and from_values.match_rule = links.match_rule
        and from_values.side = 'from'
    inner join described as to_values
        on to_values.from_key = links.from_key
        and to_values.to_key = links.to_key
        and to_values.match_rule = links.match_rule
        and to_values.side = 'to'
    inner join clusters as from_clusters
        on from_clusters.record_key = links.from_key
    inner join clusters as to_clusters
        on to_clusters.record_key = links.to_key
    left join rules
        on rules.match_rule = links.match_rule

)

select * from final
