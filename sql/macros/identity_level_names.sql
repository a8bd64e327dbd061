-- description: The identity model's level names as one row: per comparison, its level names by level index (at position level_index + 1; level 0 is missing on a side), from macros.identity_comparison_levels(). What the evidence and review marts name a pair's levels by.
create or replace macro macros.identity_level_names() as table
    select
        list(level order by level_index) filter (where comparison = 'first_name') as first_name,
        list(level order by level_index) filter (where comparison = 'last_name') as last_name,
        list(level order by level_index) filter (where comparison = 'birth_date') as birth_date,
        list(level order by level_index) filter (where comparison = 'email') as email,
        list(level order by level_index) filter (where comparison = 'phone') as phone,
        list(level order by level_index) filter (where comparison = 'address') as address,
    from macros.identity_comparison_levels();
