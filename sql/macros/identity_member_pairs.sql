-- description: The pairs of block members (a table named by members_table, rows of macros.identity_block_members with is_probe): records sharing a block value, each pair once, by record number (lower, higher), with the first rule that found it, of which at least one record is a probe (every record in a full build; in an incremental one, those that changed). Records of one entity (a customer profile and its people) are one person already and are not paired.
create or replace macro macros.identity_member_pairs(members_table) as table
    select
        lower_members.record_number as lower_number,
        higher_members.record_number as higher_number,
        min(lower_members.rule_index) as rule_index,
    from query_table(members_table) as lower_members
    inner join query_table(members_table) as higher_members
        on higher_members.block_value = lower_members.block_value
        and higher_members.record_number > lower_members.record_number
        and higher_members.entity_number <> lower_members.entity_number
    where lower_members.is_probe or higher_members.is_probe
    group by lower_members.record_number, higher_members.record_number;
