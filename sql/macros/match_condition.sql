-- description: The least macros.match_level a rule's condition word accepts: same (3), similar (2: same or alike), not_different (1: same, alike, or missing on a side), any (0).
create or replace macro macros.match_condition(condition) as
    case condition
        when 'same' then 3
        when 'similar' then 2
        when 'not_different' then 1
        when 'any' then 0
    end;
