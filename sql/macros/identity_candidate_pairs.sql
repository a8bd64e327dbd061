-- description: The candidate pairs of a table of rows shaped like intermediate.int_identity_comparables (named by records_table): records sharing the values of a blocking rule (macros.identity_block_keys; sql/identity/blocking_rules.csv), each pair once, by record number (lower, higher), with the first rule that found it. rule_filter 'predict' takes the rules that predict and only the pairs worth the model's comparison (macros.identity_worth_comparing: a block under its cap also holds people who share its values by chance, more of them as the club grows); 'blocked' the same rules' pairs before that test; a rule's index that rule's pairs alone (training, which learns from every pair a rule finds). A value on more records than its rule's cap is a placeholder (noreply@, 00000000) or a name too common to say anything: its block compares nobody, so pairs grow with the records, not with their square. Records of one entity (a customer profile and its people) are one person already and are not paired.
create or replace macro macros.identity_candidate_pairs(records_table, rule_filter) as table
    with
    records as materialized (
        select * from query_table(records_table)
    ),
    rules as (
        select * from macros.identity_blocking_rules()
        where (rule_filter in ('predict', 'blocked') and predict) or cast(rule_index as varchar) = rule_filter
    ),
    block_members as (
        select keyed.record_number, keyed.entity_key, keyed.block.rule_index, keyed.block.block_value
        from (
            select records.record_number, records.entity_key, unnest(macros.identity_block_keys(records)) as block
            from records
        ) as keyed
        semi join rules on rules.rule_index = keyed.block.rule_index
    ),
    blocks as (
        select block_members.rule_index, block_members.block_value
        from block_members
        inner join rules on rules.rule_index = block_members.rule_index
        group by block_members.rule_index, block_members.block_value
        having count(*) between 2 and any_value(rules.cap)
    ),
    members as (
        select block_members.*
        from block_members
        semi join blocks on blocks.rule_index = block_members.rule_index and blocks.block_value = block_members.block_value
    ),
    blocked as (
        select
            lower_members.record_number as lower_number,
            higher_members.record_number as higher_number,
            min(lower_members.rule_index) as rule_index,
        from members as lower_members
        inner join members as higher_members
            on higher_members.rule_index = lower_members.rule_index
            and higher_members.block_value = lower_members.block_value
            and higher_members.record_number > lower_members.record_number
            and higher_members.entity_key <> lower_members.entity_key
        group by lower_members.record_number, higher_members.record_number
    )
    select blocked.*
    from blocked
    inner join records as lower_records on lower_records.record_number = blocked.lower_number
    inner join records as higher_records on higher_records.record_number = blocked.higher_number
    where rule_filter <> 'predict' or macros.identity_worth_comparing(lower_records, higher_records);
