-- description: The block values of a table of rows shaped like intermediate.int_identity_comparables (named by records_table), one row per record and blocking rule value (macros.identity_record_block_keys; sql/identity/blocking_rules.csv) with the rule's cap, and the record's entity as a number (a hash of entity_key, as record_number is of record_key). rule_filter 'predict' takes the rules that predict, a rule's index that rule alone (training).
create or replace macro macros.identity_block_members(records_table, rule_filter) as table
    select record_number, entity_number, rule_index, block_value, cap
    from macros.identity_record_block_keys(records_table)
    where (rule_filter = 'predict' and predict) or cast(rule_index as varchar) = rule_filter;
