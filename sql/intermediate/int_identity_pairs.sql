-- materialized: incremental
-- unique_key: from_key, to_key
-- incremental_delete: from_number in (select record_number from intermediate.int_identity_record_changes where changed_at > coalesce(macros.model_built_at('intermediate.int_identity_pairs'), '-infinity')) or to_number in (select record_number from intermediate.int_identity_record_changes where changed_at > coalesce(macros.model_built_at('intermediate.int_identity_pairs'), '-infinity')) or from_number not in (select record_number from intermediate.int_identity_records) or to_number not in (select record_number from intermediate.int_identity_records)
-- description: One row per pair of records the identity model scores at least the review threshold (macros.identity_review_threshold()): the records are candidates when they share the values of a blocking rule (sql/identity/blocking_rules.csv; a value on more records than the rule's cap when the model in force was first predicted with is a placeholder and compares nobody, macros.identity_model_crowded_blocks), and worth the comparison (macros.identity_worth_comparing: nothing cheap says they are two people), each comparison's level (sql/identity/comparison_levels.csv; 0 missing on a side) and weight (log2 m/u of the stored model, macros.identity_model(); an agreeing name weighted by how many people carry it, log2 m/term frequency, as the model froze it), the match weight (the prior's log2 odds plus every weight) and the match probability. is_link: at or above the link threshold (macros.identity_link_threshold()) and no level vetoes the pair. A customer profile and its people are never compared: they are one person (int_identity_edges). from is the smaller record key. Incremental: a pair's candidacy and score depend on its two records and the model in force alone, so a build scores only the pairs of records changed since its last build (int_identity_record_changes) and keeps every other pair; a new model version scores them all. See docs/decisions.md "How fans are linked".
-- compression: from_key (fsst), to_key (fsst), blocking_rule (dictionary), from_number (uncompressed)
-- test: unique(from_key, to_key)
-- test: not_null(from_key, to_key, from_number, to_number, blocking_rule, match_weight, match_probability, is_link, model_version)

with

rules as (

    select * from macros.identity_blocking_rules()

),

-- one row: each comparison's weights by level, vetoes and term-frequency level
model as (

    select * from macros.identity_model_weights()

),

-- The records whose pairs are scored: those changed since this model's last build, every record
-- in its first build and --full-refresh (which drop this condition).
changed as (

    select record_number from intermediate.int_identity_record_changes as changes
    where changes.changed_at > coalesce(macros.model_built_at('intermediate.int_identity_pairs'), '-infinity')
        or not exists (select 1 from intermediate.int_identity_pairs)

),

-- More than a tenth of the records changed: nearly every record shares a block with one, and
-- finding which costs more than computing every record's values.
widely_changed as (

    select count(*) * 10 > (select count(*) from intermediate.int_identity_records) as is_wide
    from changed

),

-- the changed records, whose blocks are looked up (none when widely changed); found by their
-- numbers first, then read by row id: filtered by number, DuckDB read every column of every
-- record (0.15 s of a scale-10 quiet build)
probes as (

    select * from intermediate.int_identity_records
    where rowid in (
        select unnest(list(rowid)) from intermediate.int_identity_records
        where record_number in (select record_number from changed)
            and not (select is_wide from widely_changed)
    )

),

-- The values compared of the records that share a block with a changed record
-- (macros.identity_near_records: by each rule's values, joined on the changed records'), of
-- which alone they are computed: computing every record's cost most of an incremental build.
-- Every record's in a first build and --full-refresh, which drop this condition. Read by row
-- id (by number, DuckDB read every column of every record), and computed from these records
-- alone (what the view int_identity_comparables holds of them: a filter on the view computed
-- every record's first).
near_records as (

    select * from intermediate.int_identity_records
    where rowid in (
        select unnest(list(rowid)) from intermediate.int_identity_records
        where record_number in (select record_number from macros.identity_near_records('intermediate.int_identity_records', 'probes'))
            or (select is_wide from widely_changed)
            or not exists (select 1 from intermediate.int_identity_pairs)
    )

),

comparables as materialized (

    select * from macros.identity_comparables('near_records')
    -- the view named, never read (DuckDB plans no rows for it): training reads it, so the
    -- pairs depend on it, and a build of their ancestors builds it
    union all by name
    select * from intermediate.int_identity_comparables
    where false

),

-- read from the CTE above, not the view again: each read of the view computes it anew
block_members as (

    select * from macros.identity_block_members('comparables', 'predict')

),

-- the blocks a changed record is in, and each one's members now; every block in a first build
-- and --full-refresh, which drop this condition (every record changed: no need to look)
probed_members as (

    select block_members.*
    from block_members
    where block_members.block_value in (
            select block_members.block_value from block_members
            semi join changed on changed.record_number = block_members.record_number
        )
        or not exists (select 1 from intermediate.int_identity_pairs)

),

-- Values that compare nobody: crowded when the model in force was first predicted with, or at
-- three times their rule's cap since (a new placeholder such as noreply@ must not pair its
-- records square until the next version freezes it). The frozen ones are left out first (a
-- short list, and the most members), so the rest are counted once; a value on one record pairs
-- nobody either, and is left out with them.
uncrowded as (

    select probed_members.*
    from probed_members
    anti join macros.identity_model_crowded_blocks() as frozen
        on frozen.block_value = probed_members.block_value

),

-- The members of the blocks of two records up to three times their rule's cap, each block counted
-- by a window over its members (a block value is one rule's: its hash covers the rule's index, so
-- its members share their cap): the counts grouped and joined back to the members cost 0.2 s more
-- of a scale-10 full build, one thread. Every member a probe: a pair is kept below when one of
-- its records changed, which a full build need not ask (1.4M pairs); asked of every member
-- instead, it cost a join of 2.4M rows.
members as (

    select
        uncrowded.*,
        true as is_probe,
    from uncrowded
    qualify count(*) over (partition by block_value) between 2 and 3 * cap

),

-- each pair sharing the values of a blocking rule that predicts, once, of which a record changed
-- (every pair in a first build and --full-refresh, which drop this condition)
blocked as (

    select * from macros.identity_member_pairs('members')
    where lower_number in (select record_number from changed)
        or higher_number in (select record_number from changed)
        or not exists (select 1 from intermediate.int_identity_pairs)

),

-- The pairs worth the comparison: not two people sharing a block by chance. A pair found first by
-- a rule on the e-mail or the phone alone shares it (the block value is that e-mail's or phone's,
-- as everywhere blocks are compared: two values sharing a 64-bit hash would be compared, never
-- linked unseen), which the first two tests of macros.identity_worth_comparing ask: a candidate
-- without the join of both records' values the test reads (a sixth of the 1.4M blocked pairs at
-- scale 10; 0.13-0.5 s of CPU of a full build, one thread).
shared_contacts as (

    select rule_index from rules
    where block_on in ('email', 'phone')

),

unshared as (

    select * from blocked
    where rule_index not in (select rule_index from shared_contacts)

),

candidates as materialized (

    select * from blocked
    where rule_index in (select rule_index from shared_contacts)
    union all
    select * from macros.identity_worth_comparing('unshared', 'comparables')

),

compared as (

    select
        least(lower_key, higher_key) as from_key,
        greatest(lower_key, higher_key) as to_key,
        rule_index,
        levels,

    from macros.identity_pair_levels('candidates', 'comparables')

),

-- each comparison's weight at its level; an agreeing name weighed by its share of people
-- (macros.identity_name_weight)
weighted as (

    select
        compared.from_key,
        compared.to_key,
        compared.rule_index,
        compared.levels.crossed as is_crossed,
        compared.levels.first_name as first_name_level,
        compared.levels.last_name as last_name_level,
        compared.levels.birth_date as birth_date_level,
        compared.levels.email as email_level,
        compared.levels.phone as phone_level,
        compared.levels.address as address_level,
        macros.identity_name_weight(model.first_name_weights, compared.levels.first_name, model.first_name_tf_level, model.first_name_tf_m, compared.levels.first_name_tf) as first_name_weight,
        macros.identity_name_weight(model.last_name_weights, compared.levels.last_name, model.last_name_tf_level, model.last_name_tf_m, compared.levels.last_name_tf) as last_name_weight,
        model.birth_date_weights[compared.levels.birth_date + 1] as birth_date_weight,
        model.email_weights[compared.levels.email + 1] as email_weight,
        model.phone_weights[compared.levels.phone + 1] as phone_weight,
        model.address_weights[compared.levels.address + 1] as address_weight,
        macros.identity_is_vetoed(model, compared.levels) as is_vetoed,

    from compared
    cross join model

),

scored as (

    select
        weighted.*,
        macros.identity_prior_weight()
            + coalesce(first_name_weight, 0) + coalesce(last_name_weight, 0) + coalesce(birth_date_weight, 0)
            + coalesce(email_weight, 0) + coalesce(phone_weight, 0) + coalesce(address_weight, 0) as match_weight,
        1.0 / (1.0 + pow(2.0, -match_weight)) as match_probability,

    from weighted

),

final as (

    select
        macros.record_number(scored.from_key) as from_number,
        macros.record_number(scored.to_key) as to_number,
        scored.from_key,
        scored.to_key,
        rules.rule as blocking_rule,
        scored.is_crossed,
        scored.first_name_level,
        scored.first_name_weight,
        scored.last_name_level,
        scored.last_name_weight,
        scored.birth_date_level,
        scored.birth_date_weight,
        scored.email_level,
        scored.email_weight,
        scored.phone_level,
        scored.phone_weight,
        scored.address_level,
        scored.address_weight,
        macros.identity_prior_weight() as prior_weight,
        scored.match_weight,
        scored.match_probability,
        scored.is_vetoed,
        scored.match_probability >= macros.identity_link_threshold() and not scored.is_vetoed as is_link,
        macros.identity_model_version() as model_version,

    from scored
    inner join rules
        on rules.rule_index = scored.rule_index
    where scored.match_probability >= macros.identity_review_threshold()

)

select * from final
