-- description: Each identity rule has a rank of its own (seeds.identity_match_rules.rule_rank): the strongest rule that accepted a pair is the one of the lowest rank, and int_identity_matches keeps a link's rule by its rank alone. Two rules of one rank would make "the strongest" a tie, and give each of their links twice in int_identity_edges.

with

rules as (

    select * from seeds.identity_match_rules

),

final as (

    select
        rule_rank,
        count(*) as rules,
        string_agg(match_rule, ', ' order by match_rule) as match_rules,

    from rules
    group by rule_rank
    having count(*) > 1

)

select * from final
