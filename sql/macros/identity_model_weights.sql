-- description: The stored identity model (macros.identity_model()) as one row: per comparison, its weights by level (at position level_index + 1: level 0, missing on a side, weighs 0), the levels that veto a link (bit level_index set), and its term-frequency level with that level's m. What int_identity_pairs and int_identity_ambiguous_links weigh a pair's levels with.
create or replace macro macros.identity_model_weights() as table
    select
        list(weight order by level_index) filter (where comparison = 'first_name') as first_name_weights,
        list(weight order by level_index) filter (where comparison = 'last_name') as last_name_weights,
        list(weight order by level_index) filter (where comparison = 'birth_date') as birth_date_weights,
        list(weight order by level_index) filter (where comparison = 'email') as email_weights,
        list(weight order by level_index) filter (where comparison = 'phone') as phone_weights,
        list(weight order by level_index) filter (where comparison = 'address') as address_weights,
        coalesce(bit_or(cast(1 as bigint) << level_index) filter (where veto and comparison = 'first_name'), 0) as first_name_vetoes,
        coalesce(bit_or(cast(1 as bigint) << level_index) filter (where veto and comparison = 'last_name'), 0) as last_name_vetoes,
        coalesce(bit_or(cast(1 as bigint) << level_index) filter (where veto and comparison = 'birth_date'), 0) as birth_date_vetoes,
        coalesce(bit_or(cast(1 as bigint) << level_index) filter (where veto and comparison = 'email'), 0) as email_vetoes,
        coalesce(bit_or(cast(1 as bigint) << level_index) filter (where veto and comparison = 'phone'), 0) as phone_vetoes,
        coalesce(bit_or(cast(1 as bigint) << level_index) filter (where veto and comparison = 'address'), 0) as address_vetoes,
        max(level_index) filter (where term_frequency and comparison = 'first_name') as first_name_tf_level,
        max(m) filter (where term_frequency and comparison = 'first_name') as first_name_tf_m,
        max(level_index) filter (where term_frequency and comparison = 'last_name') as last_name_tf_level,
        max(m) filter (where term_frequency and comparison = 'last_name') as last_name_tf_m,
    from macros.identity_model();
