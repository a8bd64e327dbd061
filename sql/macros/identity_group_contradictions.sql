-- description: The pairs of records of one group (a component, a fan) that are two people, as macros.identity_contradicts tells them: of a table named by members_table, one row per record with its group (group_number), record_number, first_name_spelling and birth_date_key; the values macros.identity_contradicts compares are read from records_table (shaped like int_identity_comparables, one row per record_number; it may be members_table) for the records of the pairs compared alone. Only two first names or two birth dates, both written and unlike, can contradict (names written the other way round have two first names, and are compared crosswise): the other pairs of a group, most of them, are not compared. One row per pair: group_number, lower_number, higher_number.
create or replace macro macros.identity_group_contradictions(members_table, records_table) as table
    with
    member_pairs as (
        select
            members_a.group_number,
            members_a.record_number as lower_number,
            members_b.record_number as higher_number,
        from query_table(members_table) as members_a
        inner join query_table(members_table) as members_b
            on members_b.group_number = members_a.group_number
            and members_b.record_number > members_a.record_number
        where members_a.first_name_spelling <> members_b.first_name_spelling
            or members_a.birth_date_key <> members_b.birth_date_key
    ),
    -- the records of those pairs alone (a few of a group's): the pairs joined to every member's
    -- values, DuckDB misjudged them as many and hashed every member's row (a second of a full
    -- build of int_identity_clusters); the numbers as a list unnested, which it takes for few
    paired_records as (
        select * from query_table(records_table)
        where record_number in (select unnest(list(lower_number) || list(higher_number)) from member_pairs)
    )
    select * from macros.identity_pair_contradictions('member_pairs', 'paired_records');
