-- description: How two values of one attribute compare, as a number rules can demand a least of (seeds.identity_match_rules): 3 same, 2 similar, 1 missing on either side (nothing tells them apart), 0 different. A condition word of the seed maps onto the same scale through macros.match_condition.
create or replace macro macros.match_level(is_same, is_missing, is_similar) as
    case
        when is_same then 3
        when is_missing then 1
        when is_similar then 2
        else 0
    end;
