-- materialized: table
-- description: One row per pair of records for an analyst to settle in the identity overrides file (record_a, record_b, decision same or different). reason review_band: the identity model's match probability is in the review band (from the review threshold, macros.identity_review_threshold(), up to the link threshold), and the two are in different fans; the pair's strongest and weakest comparisons say what speaks for and against it (the waterfall is in int_identity_pairs, and fanlake identity explain prints it). ambiguous_link: a link the model made but identity resolution left out, because its record is linked to two records a level vetoes as two people (int_identity_ambiguous_links): whose it is, only an analyst can tell. chain_cut: a link the model made that identity resolution cut, because its component held two people (int_identity_clusters: first names unrelated, or birth dates different beyond any slip, or two customer profiles whose people agree on first names a slip apart, macros.identity_contradicts) and it was among the weakest links between them; the pair is in different fans, and only an analyst can say which side each record belongs to (a cut an analyst's different-fan override made is not listed). override_not_applied: a line of the overrides file naming a record the warehouse does not have. Pairs the file already settles are left out. The rule cascade's near_similarity, household_split and weak_link are retired: their pairs are the review band's.
-- not_personal: strongest_comparison, weakest_comparison
-- test: not_null(record_a, record_b, reason)
-- test: accepted_values(reason: review_band, ambiguous_link, chain_cut, override_not_applied)

with

-- not materialized: read for the few records listed, where a shared copy held every record
records as not materialized (

    select * from intermediate.int_identity_records

),

clusters as (

    select record_key, fan_id from intermediate.int_identity_clusters

),

pairs as not materialized (

    select * from intermediate.int_identity_pairs

),

ambiguous as not materialized (

    select * from intermediate.int_identity_ambiguous_links

),

edges as (

    select * from intermediate.int_identity_edges

),

separations as (

    select * from intermediate.int_identity_overrides
    where decision = 'different'

),

settled as (

    select * from macros.identity_overrides()

),

-- one row: each comparison's level names by level index (position level_index + 1)
level_names as (

    select * from macros.identity_level_names()

),

-- The model's links a cut left out: their two records are in different fans. An analyst's
-- different-fan override between the two fans made the cut, not the model: not listed.
cut_edges as (

    select edges.from_key, edges.to_key, edges.score,
    from edges
    inner join clusters as clusters_a
        on clusters_a.record_key = edges.from_key
    inner join clusters as clusters_b
        on clusters_b.record_key = edges.to_key
    where edges.rule_rank = 3
        and clusters_a.fan_id <> clusters_b.fan_id
        and not exists (
            select 1
            from separations
            inner join clusters as separated_a
                on separated_a.record_key = separations.from_key
            inner join clusters as separated_b
                on separated_b.record_key = separations.to_key
            where (separated_a.fan_id = clusters_a.fan_id and separated_b.fan_id = clusters_b.fan_id)
                or (separated_a.fan_id = clusters_b.fan_id and separated_b.fan_id = clusters_a.fan_id)
        )

),

-- The pairs a row below describes: the review band's, the ambiguous links and the cut links.
-- Ranking every scored pair's comparisons, links included, was most of this model's time.
listed_pairs as (

    select from_key, to_key from pairs
    where not is_link and not is_vetoed

    union

    select from_key, to_key from ambiguous

    union

    select from_key, to_key from cut_edges

),

-- each scored pair's comparisons with a level (missing weighs nothing), strongest first
comparisons as (

    select
        pairs.from_key,
        pairs.to_key,
        pairs.match_probability,
        list_sort(
            list_filter([
                {'weight': pairs.first_name_weight, 'comparison': 'first_name ' || level_names.first_name[pairs.first_name_level + 1]},
                {'weight': pairs.last_name_weight, 'comparison': 'last_name ' || level_names.last_name[pairs.last_name_level + 1]},
                {'weight': pairs.birth_date_weight, 'comparison': 'birth_date ' || level_names.birth_date[pairs.birth_date_level + 1]},
                {'weight': pairs.email_weight, 'comparison': 'email ' || level_names.email[pairs.email_level + 1]},
                {'weight': pairs.phone_weight, 'comparison': 'phone ' || level_names.phone[pairs.phone_level + 1]},
                {'weight': pairs.address_weight, 'comparison': 'address ' || level_names.address[pairs.address_level + 1]}
            ], compared -> compared.weight is not null and compared.weight <> 0),
            'DESC'
        ) as ranked,

    from pairs
    inner join listed_pairs
        on listed_pairs.from_key = pairs.from_key
        and listed_pairs.to_key = pairs.to_key
    cross join level_names

),

review_band as (

    select
        comparisons.from_key as record_a,
        comparisons.to_key as record_b,
        'review_band' as reason,
        comparisons.match_probability,
        comparisons.ranked[1].comparison || ' (' || round(comparisons.ranked[1].weight, 1) || ')' as strongest_comparison,
        comparisons.ranked[-1].comparison || ' (' || round(comparisons.ranked[-1].weight, 1) || ')' as weakest_comparison,

    from comparisons
    inner join pairs
        on pairs.from_key = comparisons.from_key
        and pairs.to_key = comparisons.to_key
    inner join clusters as clusters_a
        on clusters_a.record_key = comparisons.from_key
    inner join clusters as clusters_b
        on clusters_b.record_key = comparisons.to_key
    where not pairs.is_link
        and not pairs.is_vetoed
        and clusters_a.fan_id <> clusters_b.fan_id

),

ambiguous_link as (

    select
        ambiguous.from_key as record_a,
        ambiguous.to_key as record_b,
        'ambiguous_link' as reason,
        any_value(comparisons.match_probability) as match_probability,
        -- in a set order: two builds of the same links write the same text
        'linked to ' || string_agg(distinct ambiguous.apart_from_key || ' and ' || ambiguous.apart_to_key, '; ' order by ambiguous.apart_from_key || ' and ' || ambiguous.apart_to_key) as strongest_comparison,
        'which the model tells apart' as weakest_comparison,

    from ambiguous
    left join comparisons
        on comparisons.from_key = ambiguous.from_key
        and comparisons.to_key = ambiguous.to_key
    group by ambiguous.from_key, ambiguous.to_key

),

chain_cut as (

    select
        cut_edges.from_key as record_a,
        cut_edges.to_key as record_b,
        'chain_cut' as reason,
        cut_edges.score as match_probability,
        comparisons.ranked[1].comparison || ' (' || round(comparisons.ranked[1].weight, 1) || ')' as strongest_comparison,
        'cut: its fan would hold two people' as weakest_comparison,
    from cut_edges
    left join comparisons
        on comparisons.from_key = cut_edges.from_key
        and comparisons.to_key = cut_edges.to_key

),

-- Decisions that name a record the warehouse does not have (a typo, or a record since removed)
override_not_applied as (

    select
        settled.record_key_a as record_a,
        settled.record_key_b as record_b,
        'override_not_applied' as reason,
        cast(null as double) as match_probability,
        'line ' || settled.line_number || ': ' || settled.decision as strongest_comparison,
        concat_ws(', ',
            case when records_a.record_key is null then settled.record_key_a || ' is unknown' end,
            case when records_b.record_key is null then settled.record_key_b || ' is unknown' end
        ) as weakest_comparison,

    from settled
    left join records as records_a
        on records_a.record_key = settled.record_key_a
    left join records as records_b
        on records_b.record_key = settled.record_key_b
    where records_a.record_key is null
        or records_b.record_key is null

),

candidates as (

    select * from review_band
    union all
    select * from ambiguous_link
    union all
    select * from chain_cut

),

-- what each side of a listed pair holds, to tell a namesake from the same fan: only the columns
-- macros.identity_record_values reads (given the whole row, DuckDB read every column of every
-- record, name lists included, before keeping the few listed)
record_values as (

    select
        record_key,
        macros.identity_record_values(records) as compared_values,
    from (
        select
            record_key, first_name_spelling, last_name_spelling, birth_date_key, email, phone_key,
            street_key, postcode_key, city_key, external_user_id, customer_profile_id,
        from intermediate.int_identity_records
    ) as records
    where record_key in (select record_a from candidates union select record_b from candidates)

),

final as (

    select
        candidates.record_a,
        candidates.record_b,
        candidates.reason,
        candidates.match_probability,
        candidates.strongest_comparison,
        candidates.weakest_comparison,
        values_a.compared_values as values_a,
        values_b.compared_values as values_b,
        clusters_a.fan_id as fan_id_a,
        clusters_b.fan_id as fan_id_b,

    from candidates
    inner join clusters as clusters_a
        on clusters_a.record_key = candidates.record_a
    inner join clusters as clusters_b
        on clusters_b.record_key = candidates.record_b
    inner join record_values as values_a
        on values_a.record_key = candidates.record_a
    inner join record_values as values_b
        on values_b.record_key = candidates.record_b
    anti join settled
        on settled.record_key_a = candidates.record_a
        and settled.record_key_b = candidates.record_b

    union all

    select
        record_a,
        record_b,
        reason,
        match_probability,
        strongest_comparison,
        weakest_comparison,
        null as values_a,
        null as values_b,
        null as fan_id_a,
        null as fan_id_b,

    from override_not_applied

)

select * from final
