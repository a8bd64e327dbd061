-- description: The block values of the predicting blocking rules on more records than their rule's cap in a table of rows shaped like intermediate.int_identity_comparables (records_table): a placeholder (noreply@, 00000000) or a name too common to say anything, which compares nobody. Each identity model version keeps the list as its records held it when it was first predicted with (meta.identity_model_crowded_blocks).
create or replace macro macros.identity_crowded_blocks(records_table) as table
    select block_value
    from macros.identity_block_members(records_table, 'predict')
    group by block_value
    having count(*) > any_value(cap);
