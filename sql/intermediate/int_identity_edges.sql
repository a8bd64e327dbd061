-- materialized: table
-- unique_key: from_key, to_key
-- description: One row per pair of records that identity resolution linked (int_identity_matches, where the rules of seeds.identity_match_rules are applied), with the strongest rule that accepted them and its score; from is the smaller record key; written as a difference, since a build changes few links. The values compared are in marts.fan_identity_evidence, which reads them from int_identity_records: carried here, they were written again for every link on every build and read by nothing. Rules by strength: external_id, customer_profile, email_name_birth_date, email_name, phone_name, name_birth_date, similar_last_name, similar_first_name, name_address_birth_date, name_address, unique_name.
-- test: not_null(from_number, to_number, from_key, to_key, match_rule, rule_rank)
-- test: unique(from_number, to_number)
-- test: relationships(match_rule -> seeds.identity_match_rules.match_rule)
-- test: relationships(from_key -> intermediate.int_identity_records.record_key)
-- test: relationships(to_key -> intermediate.int_identity_records.record_key)

with

matches as (

    select * from intermediate.int_identity_matches

),

rules as (

    select * from seeds.identity_match_rules

),

-- each link once, from its smaller record key (the row that keeps it)
links as (

    select
        record_key as from_key,
        link.other_key as to_key,
        link.rule_rank,
        link.score,

    from (
        select record_key, unnest(links) as link from matches
    ) as record_links

),

-- the matches keep a link's rule by its rank, a rule's own (sql/tests/identity_match_rules_ranked_apart.sql)
final as (

    select
        macros.record_number(links.from_key) as from_number,
        macros.record_number(links.to_key) as to_number,
        links.from_key,
        links.to_key,
        rules.match_rule,
        links.rule_rank,
        links.score,

    from links
    inner join rules
        on rules.rule_rank = links.rule_rank

)

select * from final
