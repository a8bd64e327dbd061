-- description: The candidate pairs of a table of rows shaped like intermediate.int_identity_comparables (named by records_table), as the records hold them now: records sharing the values of a blocking rule (macros.identity_block_members), each pair once, by record number (lower, higher), with the first rule that found it (macros.identity_member_pairs). rule_filter 'predict' takes the rules that predict and only the pairs worth the model's comparison (macros.identity_worth_comparing: a block under its cap also holds people who share its values by chance, more of them as the club grows); 'blocked' the same rules' pairs before that test; a rule's index that rule's pairs alone (training, which learns from every pair a rule finds). A value on more records than its rule's cap is a placeholder (noreply@, 00000000) or a name too common to say anything: its block compares nobody, so pairs grow with the records, not with their square. Training and the benchmarks count blocks this way; int_identity_pairs takes the crowded values the model in force froze (macros.identity_model_crowded_blocks) and applies the same test.
create or replace macro macros.identity_candidate_pairs(records_table, rule_filter) as table
    with
    records as materialized (
        select * from query_table(records_table)
    ),
    block_members as (
        select * from macros.identity_block_members('records', case when rule_filter = 'blocked' then 'predict' else rule_filter end)
    ),
    blocks as (
        select block_value
        from block_members
        group by block_value
        having count(*) between 2 and any_value(cap)
    ),
    members as (
        select block_members.*, true as is_probe
        from block_members
        semi join blocks on blocks.block_value = block_members.block_value
    ),
    blocked as materialized (
        select * from macros.identity_member_pairs('members')
    )
    select * from blocked where rule_filter <> 'predict'
    union all
    select * from macros.identity_worth_comparing('blocked', 'records') where rule_filter = 'predict';
