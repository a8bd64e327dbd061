-- materialized: incremental
-- unique_key: from_key, to_key, middle_key, apart_from_key, apart_to_key
-- incremental_delete: middle_key in (select record_key from intermediate.int_identity_record_changes where changed_at > coalesce(macros.model_built_at('intermediate.int_identity_ambiguous_links'), '-infinity')) or middle_key in (select to_key from intermediate.int_identity_pairs where is_link and from_key in (select unnest(list(record_key)) from intermediate.int_identity_record_changes where changed_at > coalesce(macros.model_built_at('intermediate.int_identity_ambiguous_links'), '-infinity'))) or middle_key in (select from_key from intermediate.int_identity_pairs where is_link and to_key in (select unnest(list(record_key)) from intermediate.int_identity_record_changes where changed_at > coalesce(macros.model_built_at('intermediate.int_identity_ambiguous_links'), '-infinity'))) or middle_key in (select named.middle_key from (select middle_key, unnest([from_key, to_key, apart_from_key, apart_to_key]) as named_key from intermediate.int_identity_ambiguous_links) as named where named.named_key in (select record_key from intermediate.int_identity_record_changes where changed_at > coalesce(macros.model_built_at('intermediate.int_identity_ambiguous_links'), '-infinity')) or named.named_key not in (select record_key from intermediate.int_identity_records where record_key in (select unnest(list(named_key)) from (select unnest([from_key, to_key, apart_from_key, apart_to_key]) as named_key from intermediate.int_identity_ambiguous_links))))
-- description: One row per link the identity model made (int_identity_pairs, is_link) that is not kept because its record cannot be told whose it is: the record is linked to two records the model tells apart, by a level that vetoes a link (sql/identity/comparison_levels.csv, veto true: two first names) or by evidence against them at least macros.identity_ambiguity_weight() (sql/identity/training.csv: two birth dates), as a record without a first name in a household's mailbox is linked to both partners, or a profile with only a last name to father and son of one name. Both of its links to the two are left out (int_identity_edges) and listed for review (marts.fan_identity_review, reason ambiguous_link). Links made by a customer profile or an identity's externalId (hard links) stay whatever the comparison says. Incremental: a build judges again only the middle records changed since its last build (int_identity_record_changes), linked to one, or whose rows named one or a record gone. 
-- test: not_null(from_key, to_key, middle_key, apart_from_key, apart_to_key)

with

pairs as (

    select * from intermediate.int_identity_pairs
    where is_link

),

-- The records whose compared values changed since this model's last build (int_identity_record_changes);
-- every record in its first build and --full-refresh, which drop this condition.
changed as (

    select record_key from intermediate.int_identity_record_changes
    where changed_at > coalesce(macros.model_built_at('intermediate.int_identity_ambiguous_links'), '-infinity')
        or not exists (select 1 from intermediate.int_identity_ambiguous_links)

),

-- The middle records judged again, whose rows the build replaced (incremental_delete): the
-- changed records, those the model links to one (a link, or the values of a record linked, may
-- have changed), and those whose rows named a changed record or one gone (a link that went may
-- leave a middle no longer ambiguous). A middle's rows depend on its links and the values of the
-- records they reach alone. Every record in a first build and --full-refresh.
recomputed as (

    -- the candidates' keys as one list unnested, which DuckDB takes for few: as a CTE of every
    -- record's key and entity, which three parts of this model read, DuckDB copied all 613k of a
    -- scale-10 club first (0.08 s of a quiet build's 0.3, one thread)
    select record_key from intermediate.int_identity_records
    where record_key in (
        select unnest(list(candidate_key)) from (
            select record_key as candidate_key from changed
            -- the changed keys as a list unnested, which DuckDB takes for few and hashes (not the links)
            union all
            select to_key from pairs where from_key in (select unnest(list(record_key)) from changed)
            union all
            select from_key from pairs where to_key in (select unnest(list(record_key)) from changed)
            union all
            -- each record a stored row names, once: a NOT IN per column hashed every record four
            -- times; whether it is still a record, asked of the named keys alone (a NOT EXISTS
            -- against every record hashed all their keys)
            select named.middle_key
            from (
                select middle_key, unnest([from_key, to_key, apart_from_key, apart_to_key]) as named_key
                from intermediate.int_identity_ambiguous_links
            ) as named
            where named.named_key in (select record_key from changed)
                or named.named_key not in (
                    select record_key from intermediate.int_identity_records
                    where record_key in (
                        select unnest(list(named_key)) from (
                            select unnest([from_key, to_key, apart_from_key, apart_to_key]) as named_key
                            from intermediate.int_identity_ambiguous_links
                        )
                    )
                )
        ) as candidates
    )

),

model as (

    select * from macros.identity_model_weights()

),

-- the model links of every middle judged again, from both ends, with the other end's entity
link_ends as (

    select
        ends.record_key,
        ends.other_key,
        ends.other_number,
        records.entity_key as other_entity,

    -- every record's in a first build and --full-refresh, which drop this condition (a filter
    -- that keeps every link end cost a tenth of the model); before the join (after it, DuckDB
    -- joined every link end to its record first)
    from (
        select * from (
            select from_key as record_key, to_key as other_key, to_number as other_number from pairs
            union all
            select to_key as record_key, from_key as other_key, from_number as other_number from pairs
        )
        where record_key in (select record_key from recomputed)
            or not exists (select 1 from intermediate.int_identity_ambiguous_links)
    ) as ends
    -- by number: a join on the 613k keys' text cost twice as much
    inner join intermediate.int_identity_records as records
        on records.record_number = ends.other_number

),

-- two records of different entities one record is linked to by the model
neighbour_pairs as (

    select
        first_ends.record_key as middle_key,
        first_ends.other_key as apart_from_key,
        second_ends.other_key as apart_to_key,
        first_ends.other_entity as apart_from_entity,
        second_ends.other_entity as apart_to_entity,
        -- the two by record number, as macros.identity_pair_levels pairs them
        first_ends.other_number as lower_number,
        second_ends.other_number as higher_number,

    from link_ends as first_ends
    inner join link_ends as second_ends
        on second_ends.record_key = first_ends.record_key
        and second_ends.other_key > first_ends.other_key
        and second_ends.other_entity <> first_ends.other_entity

),

-- the values the two are compared on, of those records alone (int_identity_comparables computes
-- every record's before a filter on its rows), read by row id (filtered by number, DuckDB read
-- every column of every record)
neighbour_records as (

    select * from intermediate.int_identity_records
    where rowid in (
        select unnest(list(rowid)) from intermediate.int_identity_records
        where record_number in (select lower_number from neighbour_pairs union all select higher_number from neighbour_pairs)
    )

),

neighbours as materialized (

    select * from macros.identity_comparables('neighbour_records')

),

-- the two compared as any candidate pair is (macros.identity_pair_levels: macros.identity_levels
-- written out over the joined columns)
compared as (

    select * from macros.identity_pair_levels('neighbour_pairs', 'neighbours')

),

-- told apart: a level vetoes them, or the evidence against them (the sum of their negative
-- weights) reaches macros.identity_ambiguity_weight()
vetoed as (

    select compared.*
    from compared
    cross join model
    where macros.identity_is_vetoed(model, compared.levels)
        or least(model.first_name_weights[compared.levels.first_name + 1], 0)
            + least(model.last_name_weights[compared.levels.last_name + 1], 0)
            + least(model.birth_date_weights[compared.levels.birth_date + 1], 0)
            + least(model.email_weights[compared.levels.email + 1], 0)
            + least(model.phone_weights[compared.levels.phone + 1], 0)
            + least(model.address_weights[compared.levels.address + 1], 0) <= macros.identity_ambiguity_weight()

),

-- the middle record's links to every record of either entity (a profile and its people alike)
final as (

    select distinct
        least(link_ends.record_key, link_ends.other_key) as from_key,
        greatest(link_ends.record_key, link_ends.other_key) as to_key,
        vetoed.middle_key,
        vetoed.apart_from_key,
        vetoed.apart_to_key,

    from vetoed
    inner join link_ends
        on link_ends.record_key = vetoed.middle_key
        and link_ends.other_entity in (vetoed.apart_from_entity, vetoed.apart_to_entity)

)

select * from final
