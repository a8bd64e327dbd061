-- description: The candidate pairs of a table of rows shaped like intermediate.int_identity_comparables (named by records_table), as the records hold them now: records sharing the values of a blocking rule (macros.identity_block_members), each pair once, by record number (lower, higher), with the first rule that found it (macros.identity_member_pairs). rule_filter 'predict' takes the rules that predict, a rule's index that rule alone (training). A value on more records than its rule's cap is a placeholder (noreply@, 00000000) or a name too common to say anything: its block compares nobody, so pairs grow with the records, not with their square. Training counts blocks this way; int_identity_pairs takes the crowded values the model in force froze (macros.identity_model_crowded_blocks).
create or replace macro macros.identity_candidate_pairs(records_table, rule_filter) as table
    with
    block_members as (
        select * from macros.identity_block_members(records_table, rule_filter)
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
    )
    select * from macros.identity_member_pairs('members');
