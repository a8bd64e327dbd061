-- materialized: incremental
-- unique_key: record_key
-- incremental_delete: record_key in (select record_key from macros.identity_records_dropped('intermediate.int_identity_clusters', 'intermediate.int_identity_records'))
-- lineage_columns: changed_at
-- description: One row per record: its fan, the connected component of its links (int_identity_edges: the hard links and the identity model's, and the analysts' same-fan overrides) it belongs to, the part of it its fan is once its weakest links are cut where the component holds two records an analyst declared different (different-fan overrides) or two the model joined that contradict each other (macros.identity_contradicts: first names unrelated where the model in force weighs that at least the ambiguity weight against, else in a household's case: one e-mail or phone, or one surname with no other birth date or address, or birth dates different beyond any slip, a slip and a day-month swap at once included, or two customer profiles whose people agree on first names a slip apart; a hard link or a same-fan override may join them), and the strongest rule that linked it. A record that matches nobody is its own fan. Incremental: only the components holding a record whose links changed (link_signature) or that int_identity_records computed since (its changed_at: the names and birth date a contradiction is judged on) are recomputed, and changed_at says when a build last computed the record's row (int_fan_contacts reads only those); see docs/decisions.md.
-- compression: record_key (fsst), record_id (fsst), fan_id (fsst), system (dictionary), match_rule (dictionary)
-- test: unique(record_key)
-- test: not_null(record_key, fan_id, component_number, match_rule, link_signature)

with recursive

-- The records and the edges are read from their tables where used, each read only the columns
-- it needs: as a CTE read twice, DuckDB copied every row first (a full build drops the "not
-- materialized" hint: 0.3 s of the records and 0.3 s of the edges).

overrides as (

    select * from intermediate.int_identity_overrides

),

edges as not materialized (

    select
        rule_edges.from_number,
        rule_edges.to_number,
        rule_edges.from_key,
        rule_edges.to_key,
        rule_edges.match_rule,
        rule_edges.rule_rank,
        rule_edges.score,

    from intermediate.int_identity_edges as rule_edges

    union all

    select
        from_number,
        to_number,
        from_key,
        to_key,
        match_rule,
        rule_rank,
        1.0 as score,

    from overrides
    where decision = 'same'

),

separations as (

    select * from overrides
    where decision = 'different'

),

-- each link and separation from both ends: the other end by record key, as the matches keep it
link_ends as (

    select from_number as record_number, to_key as other_key, match_rule, rule_rank from edges
    union all
    select to_number as record_number, from_key as other_key, match_rule, rule_rank from edges
    union all
    select from_number as record_number, to_key as other_key, 'different' as match_rule, 0 as rule_rank from separations
    union all
    select to_number as record_number, from_key as other_key, 'different' as match_rule, 0 as rule_rank from separations

),

-- All a record's fan depends on beside its values (changed, below) is its links: a hash of each
-- of its links to larger record keys (the other key and how it was made; not the model's
-- probability, which moves a little for every link when the names' term frequencies do, and
-- decides nothing here) and of each
-- analysts' decision naming it, summed so their order does not matter (a sorted list of every
-- record's links cost twice as much). A link to a smaller key changes the other end's
-- signature, and its whole component (this record too) is recomputed.
record_links as (

    -- grouped and joined by number: by the keys' text, the grouping and the join cost twice as much
    select
        from_number as record_number,
        sum(hash(to_key, match_rule)) as links_signature,

    from intermediate.int_identity_edges
    group by from_number

),

link_signatures as (

    select
        records.record_key,
        records.record_number,
        hash(coalesce(record_links.links_signature, 0), coalesce(decided.decision_signature, 0)) as link_signature,

    from intermediate.int_identity_records as records
    left join record_links
        on record_links.record_number = records.record_number
    left join (
        select
            record_number,
            sum(hash(other_key, decision)) as decision_signature,
        from (
            select from_number as record_number, to_key as other_key, decision from overrides
            union all
            select to_number as record_number, from_key as other_key, decision from overrides
        ) as decision_ends
        group by record_number
    ) as decided
        on decided.record_number = records.record_number

),

-- Records whose links changed since the last build, or that are new, and the records
-- int_identity_records computed since (their changed_at): the values macros.identity_contradicts
-- reads count too, as a record renamed with its links unchanged may now contradict its fan, and
-- every record whose values changed was computed since (hashing every record's values cost a
-- quiet build 0.2 s). The first build (and --full-refresh) drops this condition, which reads
-- this table, so every record counts as changed.
changed as (

    select record_number, record_key from link_signatures
    where not exists (
            select 1 from intermediate.int_identity_clusters as stored
            where stored.record_key = link_signatures.record_key
                and stored.link_signature = link_signatures.link_signature
        )
        -- the stamped records as a list unnested, which DuckDB takes for few
        or record_number in (
            select unnest(list(record_number)) from intermediate.int_identity_records
            where changed_at > coalesce(macros.model_built_at('intermediate.int_identity_clusters'), '-infinity')
                and exists (select 1 from intermediate.int_identity_clusters)
        )

),

touched as (

    select record_key from changed
    union
    select link_ends.other_key as record_key
    from changed
    inner join link_ends
        on link_ends.record_number = changed.record_number

),

-- What is recomputed: the changed records, their neighbours, and every record of the components
-- they or a removed record were in (a removed record's links were kept on its own row too, so
-- its neighbours' signatures need not show them). A component none of whose records changed
-- keeps its links, so its fans stand.
affected as (

    select
        record_number,
        record_key,
        system,
        record_id,

    from intermediate.int_identity_records
    where record_key in (select record_key from touched)
        or record_key in (
            select stored.record_key from intermediate.int_identity_clusters as stored
            where stored.component_number in (
                select touched_stored.component_number from intermediate.int_identity_clusters as touched_stored
                where touched_stored.record_key in (select record_key from touched)
                    -- a removed record (macros.identity_records_dropped: looked for only when the row counts say some are gone)
                    or touched_stored.record_key in (select record_key from macros.identity_records_dropped('intermediate.int_identity_clusters', 'intermediate.int_identity_records'))
            )
        )

),

-- every edge in a first build and --full-refresh, which drop this condition (each edge's
-- records are records: a filter that keeps every edge cost a twentieth of the model)
affected_edges as (

    select edges.*
    from edges
    where edges.from_number in (select record_number from affected)
        or not exists (select 1 from intermediate.int_identity_clusters)

),

-- Every linked record's first label: the smallest of its own and its neighbours' numbers; and
-- how it was linked: the strongest rule among its links (its fan's, unless a cut left some out:
-- below), in the same grouping of every link end (a second grouping cost about 0.15 s of a full
-- build, one thread).
initial_labels as (

    select
        record_number,
        least(record_number, min(neighbour_number)) as label,
        arg_min(match_rule, rule_rank) as match_rule,
        min(rule_rank) as rule_rank,

    from (
        select from_number as record_number, to_number as neighbour_number, match_rule, rule_rank from affected_edges
        union all
        select to_number as record_number, from_number as neighbour_number, match_rule, rule_rank from affected_edges
    ) as neighbours
    group by record_number

),

-- The records of a first label are of one component (each is the record its label names, or
-- linked to it): what joins labels is a link between records of two, so the labels are a graph
-- of their own, of the links that cross them (83k of a scale-10 club's 485k), and the
-- components are found on it. Propagating on the links themselves read every link end and
-- hashed every first label again in each of its five iterations (0.1-0.2 s more of a full
-- build's 2.2, one thread).
label_links as (

    select distinct
        from_labels.label as from_label,
        to_labels.label as to_label,

    from affected_edges
    inner join initial_labels as from_labels
        on from_labels.record_number = affected_edges.from_number
    inner join initial_labels as to_labels
        on to_labels.record_number = affected_edges.to_number
    where from_labels.label <> to_labels.label

),

-- both directions, so a label flows either way along a link
label_neighbours as (

    select from_label as label, to_label as neighbour_label from label_links
    union all
    select to_label as label, from_label as neighbour_label from label_links

),

-- every linked label's own component label: the smallest of its own and its neighbours'
label_starts as (

    select
        label,
        least(label, min(neighbour_label)) as component_number,

    from label_neighbours
    group by label

),

-- Label propagation: a component label a label holds is handed to each neighbour whose own is
-- larger, until no label receives one it has not held: a fixpoint, with no bound on the
-- iterations, as a bound would split a long cluster silently. UNION (not UNION ALL) keeps each
-- label's component label once, so an iteration reads only those new in the last one, not every
-- label again, and it ends. A label ends with the smallest of its component, which is the
-- smallest record number in it (that record's first label is its own).
propagation (label, component_number) as (

    select label, component_number from label_starts

    union

    select
        label_neighbours.neighbour_label as label,
        propagation.component_number,

    from propagation
    inner join label_neighbours
        on label_neighbours.label = propagation.label
    inner join label_starts as receiving
        on receiving.label = label_neighbours.neighbour_label
    where propagation.component_number < receiving.component_number

),

-- each label's component, as lists unnested: DuckDB takes the recursion's rows for billions,
-- and so every join after it, and hashed the larger side of each (every record's values) where
-- the other is the smaller
converged as (

    select
        unnest(list(label)) as label,
        unnest(list(component_number)) as component_number,

    from (
        select label, min(component_number) as component_number from propagation
        group by label
    )

),

-- each linked record's component: its first label's, or that label when no link crosses it
linked_components as (

    select
        initial_labels.record_number,
        coalesce(converged.component_number, initial_labels.label) as component_number,
        initial_labels.match_rule,
        initial_labels.rule_rank,

    from initial_labels
    left join converged
        on converged.label = initial_labels.label

),

components as (

    select
        affected.record_number,
        affected.record_key,
        affected.system,
        affected.record_id,
        coalesce(linked_components.component_number, affected.record_number) as component_number,
        linked_components.match_rule,
        linked_components.rule_rank,

    from affected
    left join linked_components
        on linked_components.record_number = affected.record_number

),

-- Two records of one component that are two people (macros.identity_contradicts: first names
-- unrelated where the model says that tells people apart, else in a household's case: one e-mail
-- or phone, or one surname with no other birth date or address, or birth dates different beyond any slip, or profiles whose people agree on two
-- names a slip apart), in a component the model linked: the model chained
-- them (Kari, a nameless mailbox record, a nameless phone record, Ola), or linked a father to
-- his son of one name. No model link may join them; hard links and same-fan overrides may.
-- Compared pair by pair within a component (a handful of records each).
model_components as (

    select distinct components.component_number
    from affected_edges
    inner join components
        on components.record_number = affected_edges.from_number
    where affected_edges.rule_rank = 3

),

-- The first name and birth date of the members of model-linked components, which choose the
-- pairs compared (macros.identity_group_contradictions reads the rest of the values
-- macros.identity_contradicts compares of those pairs' records alone, from the records, which
-- hold them all: the view would weigh every name too). Of the records recomputed alone, read by
-- row id (joined to every record's values, DuckDB read all 613k of a scale-10 club for a few);
-- every record's in a first build and --full-refresh, which drop this condition (it reads this
-- model).
comparables as (

    select
        record_number,
        first_name_spelling,
        birth_date_key,

    from intermediate.int_identity_records
    where rowid in (
        select unnest(list(rowid)) from intermediate.int_identity_records
        where record_number in (select record_number from affected)
            and exists (select 1 from intermediate.int_identity_clusters)
    )

),

model_members as materialized (

    select
        components.component_number as group_number,
        comparables.record_number,
        comparables.first_name_spelling,
        comparables.birth_date_key,

    from components
    semi join model_components
        on model_components.component_number = components.component_number
    inner join comparables
        on comparables.record_number = components.record_number

),

-- macros.identity_contradicts over the pairs of each component (macros.identity_group_contradictions)
contradictions as (

    select
        lower_number as from_number,
        higher_number as to_number,
        group_number as component_number,

    from macros.identity_group_contradictions('model_members', 'intermediate.int_identity_records')

),

-- what no fan may join: an analyst's different-fan override (against every link), a
-- contradiction (against the model's links only)
forbidden_pairs as (

    select from_number, to_number, false as model_only from separations
    union all
    select from_number, to_number, true as model_only from contradictions

),

-- The few records of forbidden pairs, and below those of the components they cut and their
-- links, are found by number as a list unnested, which DuckDB takes for few: joined to the
-- components and links, it hashed every record's component and every link (about 0.2 s of a
-- full build, one thread) for a handful of pairs.
forbidden_ends as (

    select record_number, component_number
    from components
    where record_number in (select unnest(list(from_number) || list(to_number)) from forbidden_pairs)

),

-- components holding a forbidden pair: each is cut
cut_components as (

    select distinct from_ends.component_number
    from forbidden_pairs
    inner join forbidden_ends as from_ends
        on from_ends.record_number = forbidden_pairs.from_number
    inner join forbidden_ends as to_ends
        on to_ends.record_number = forbidden_pairs.to_number
        and to_ends.component_number = from_ends.component_number

),

-- the records of a cut component, numbered 1..n within it
cut_members as (

    select
        component_number,
        record_number,
        row_number() over (partition by component_number order by record_number) as position,

    from components
    where component_number in (select unnest(list(component_number)) from cut_components)

),

-- the links of the cut components (a link's two records are of one component)
cut_edges as (

    select * from affected_edges
    where from_number in (select unnest(list(record_number)) from cut_members)

),

-- its links strongest first (rule rank, then the model's probability, then record keys), as
-- one list per component
cut_links as (

    select
        from_members.component_number,
        list(
            {'labels': null::bigint[], 'from_position': from_members.position, 'to_position': to_members.position, 'rule_rank': cut_edges.rule_rank}
            order by cut_edges.rule_rank, cut_edges.score desc, least(cut_edges.from_key, cut_edges.to_key), greatest(cut_edges.from_key, cut_edges.to_key), cut_edges.match_rule
        ) as links,

    from cut_edges
    inner join cut_members as from_members
        on from_members.record_number = cut_edges.from_number
    inner join cut_members as to_members
        on to_members.record_number = cut_edges.to_number
    group by from_members.component_number

),

cut_separations as (

    select
        from_members.component_number,
        list({'a': from_members.position, 'b': to_members.position, 'model_only': forbidden_pairs.model_only}) as pairs,

    from forbidden_pairs
    inner join cut_members as from_members
        on from_members.record_number = forbidden_pairs.from_number
    inner join cut_members as to_members
        on to_members.record_number = forbidden_pairs.to_number
        and to_members.component_number = from_members.component_number
    group by from_members.component_number

),

cut_start as (

    select
        component_number,
        list(position order by position) as labels,

    from cut_members
    group by component_number

),

-- A cut component is rebuilt by adding its links strongest first (Kruskal's order); a link that
-- would put two records an analyst declared different, or (a model link) two records that
-- contradict, into one fan is left out. labels[i] is the smallest position in record i's part
-- so far. So the links dropped are the weakest on the paths between the two, and the rest of
-- the component stays together where it can. Hard links come first, so a contradiction they
-- already joined forbids nothing. One list_reduce per component over its links in order (a
-- recursive CTE of one step per link cost an iteration per link of the largest component).
cutting as (

    select
        cut_start.component_number,
        -- list_reduce's state has its elements' type: each link carries an empty labels field,
        -- the state the labels alone
        list_reduce(
            cut_links.links,
            (state, link) -> {
                'labels': case
                    when state.labels[link.from_position] = state.labels[link.to_position]
                        or list_bool_or(list_transform(
                            cut_separations.pairs,
                            pair -> (link.rule_rank = 3 or not pair.model_only) and (
                                (state.labels[pair.a] = state.labels[link.from_position] and state.labels[pair.b] = state.labels[link.to_position])
                                or (state.labels[pair.a] = state.labels[link.to_position] and state.labels[pair.b] = state.labels[link.from_position])
                            )
                        ))
                        then state.labels
                    else list_transform(
                        state.labels,
                        label -> case
                            when label = greatest(state.labels[link.from_position], state.labels[link.to_position])
                                then least(state.labels[link.from_position], state.labels[link.to_position])
                            else label
                        end
                    )
                end,
                'from_position': null,
                'to_position': null,
                'rule_rank': null,
            },
            {'labels': cut_start.labels, 'from_position': null, 'to_position': null, 'rule_rank': null}
        ).labels as labels,

    from cut_start
    inner join cut_links
        on cut_links.component_number = cut_start.component_number
    inner join cut_separations
        on cut_separations.component_number = cut_start.component_number

),

-- each record of a cut component and the part it is in, as lists unnested (for few: see converged)
cut_parts as (

    select
        unnest(list(cut_members.record_number)) as record_number,
        unnest(list(part_members.record_number)) as part_number,

    from cutting as cut
    inner join cut_members
        on cut_members.component_number = cut.component_number
    inner join cut_members as part_members
        on part_members.component_number = cut.component_number
        and part_members.position = cut.labels[cut_members.position]

),

-- the links a cut left out: both ends in one cut component, in different parts
cut_off_links as (

    select
        cut_edges.from_number,
        cut_edges.to_number,

    from cut_edges
    inner join cut_parts as from_parts
        on from_parts.record_number = cut_edges.from_number
    inner join cut_parts as to_parts
        on to_parts.record_number = cut_edges.to_number
    where from_parts.part_number <> to_parts.part_number

),

kept_links as (

    select cut_edges.*
    from cut_edges
    anti join cut_off_links
        on cut_off_links.from_number = cut_edges.from_number
        and cut_off_links.to_number = cut_edges.to_number

),

-- how a record of a cut component was linked: the strongest rule among its links the cut kept
cut_rules as (

    select
        record_number,
        arg_min(match_rule, rule_rank) as match_rule,
        min(rule_rank) as rule_rank,

    from (
        select from_number as record_number, match_rule, rule_rank from kept_links
        union all
        select to_number as record_number, match_rule, rule_rank from kept_links
    ) as record_rules
    group by record_number

),

-- each record's fan: its component, or its part of a cut one, numbered by a record of it; and
-- its strongest rule within its fan: among all its links (initial_labels), or of a cut
-- component, among those the cut kept
parts as (

    select
        components.record_number,
        components.record_key,
        components.system,
        components.record_id,
        components.component_number,
        coalesce(cut_parts.part_number, components.component_number) as cluster_number,
        case when cut_parts.record_number is null then components.match_rule else cut_rules.match_rule end as match_rule,
        case when cut_parts.record_number is null then components.rule_rank else cut_rules.rule_rank end as rule_rank,

    from components
    left join cut_parts
        on cut_parts.record_number = components.record_number
    left join cut_rules
        on cut_rules.record_number = components.record_number

),

-- A fan is named after its smallest record key, so it keeps its id across builds as long as
-- that record stays in it (see docs/decisions.md for merges and splits). Its id is computed
-- once per fan; a component needs no name beyond its number (the smallest record number in
-- it: a hash of a key, so as stable as the name).
cluster_fans as (

    select
        cluster_number,
        'fan_' || left(md5(min(record_key)), 16) as fan_id,

    from parts
    group by cluster_number

),

final as (

    select
        cluster_fans.fan_id,
        parts.record_key,
        parts.system,
        parts.record_id,
        parts.component_number,
        coalesce(parts.match_rule, 'unmatched') as match_rule,
        coalesce(parts.rule_rank, 9) as rule_rank,
        link_signatures.link_signature,
        -- every row whose fan, rule or records changed is computed again: int_fan_contacts reads
        -- the fans of rows computed since its last build, not every fan's records
        now() as changed_at,

    from parts
    inner join cluster_fans
        on cluster_fans.cluster_number = parts.cluster_number
    inner join link_signatures
        on link_signatures.record_number = parts.record_number

)

select * from final
