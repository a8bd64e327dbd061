-- materialized: incremental
-- unique_key: fan_id
-- incremental_delete: fan_id in (select fan_id from marts.fan_engagement anti join (select fan_id from marts.dim_fan where has_engagement_profile) as fans using (fan_id))
-- as_of: extraction
-- description: One row per fan with an engagement customer profile: their place on the general leaderboard of the most current leaderboard season (the active one, else the newest past one, else the one starting soonest, as of extraction; only the top 100 positions are extracted, so fans below have no position), beside their ticket and merchandise spend from dim_fan. Amounts in NOK incl. VAT. Loyalty is in fan_loyalty. Incremental: a build computes the fans whose dim_fan row may have changed since its last build (stamped by int_fan_changes or int_fan_purchases, as dim_fan finds them) and those whose place on the board differs from the stored one, and deletes the fans gone or without a profile now; another current leaderboard season computes every fan.
-- personal: first_name (name), last_name (name)
-- test: unique(fan_id)
-- test: not_null(fan_id, customer_profile_id, is_on_leaderboard, ticket_spend, merchandise_spend, total_spend)
-- test: relationships(fan_id -> marts.dim_fan.fan_id)
-- test: relationships(leaderboard_season_id -> staging.stg_engagement__leaderboard_seasons.season_id)

with

-- not materialized: read for the fans computed and for their rows, each a few columns
fans as not materialized (

    select * from marts.dim_fan
    where has_engagement_profile

),

clusters as (

    select * from intermediate.int_identity_clusters

),

leaderboard_seasons as (

    select * from staging.stg_engagement__leaderboard_seasons
    where vanished_at is null

),

top_positions as (

    select * from staging.stg_engagement__top_positions
    where vanished_at is null

),

-- "now" is when the seasons were read, so a rebuild does not move to another season
as_of as (

    select
        max(_extracted_at) as extracted_at,

    from leaderboard_seasons

),

-- The API's rule for its default season: the active one, else the newest past one, else
-- the one starting soonest.
current_season as (

    select
        leaderboard_seasons.season_id,
        leaderboard_seasons.season_name,

    from leaderboard_seasons
    cross join as_of
    qualify row_number() over (
        order by
            case
                when as_of.extracted_at between leaderboard_seasons.starts_at and leaderboard_seasons.ends_at then 1
                when leaderboard_seasons.ends_at < as_of.extracted_at then 2
                else 3
            end,
            case
                when as_of.extracted_at between leaderboard_seasons.starts_at and leaderboard_seasons.ends_at then -epoch(leaderboard_seasons.starts_at)
                when leaderboard_seasons.ends_at < as_of.extracted_at then -epoch(leaderboard_seasons.ends_at)
                else epoch(leaderboard_seasons.starts_at)
            end,
            leaderboard_seasons.season_id
    ) = 1

),

general_board as (

    select
        top_positions.*,

    from top_positions
    inner join current_season
        on current_season.season_id = top_positions.season_id
    where top_positions.is_general_board

),

-- a fan with several profiles keeps their best place
fan_positions as (

    select
        clusters.fan_id,
        min(general_board.position) as leaderboard_position,
        arg_min(general_board.previous_position, general_board.position) as leaderboard_previous_position,
        max(general_board.score) as leaderboard_score,

    from general_board
    inner join clusters
        on clusters.system = 'engagement_customer_profile'
        and clusters.record_id = cast(general_board.customer_profile_id as varchar)
    group by clusters.fan_id

),

-- The fans whose dim_fan row changed since this model's last build, by the models dim_fan follows.
changed_fans as (

    select fan_id from intermediate.int_fan_changes
    where changed_at > coalesce(macros.model_built_at('marts.fan_engagement'), '-infinity')

    union

    select fan_id from intermediate.int_fan_purchases
    where changed_at > coalesce(macros.model_built_at('marts.fan_engagement'), '-infinity')

),

-- The fans this build computes: the changed ones, those whose place on the board differs from the
-- stored one (a hundred places: compared both ways), and every fan when the current season is
-- another. One condition that reads this table, which the first build (and --full-refresh)
-- drops: every fan.
computed_fans as (

    select fan_id from fans
    where fan_id in (select fan_id from changed_fans)
        or fan_id in (
            select fan_id from (
                select fan_id, leaderboard_position, leaderboard_previous_position, leaderboard_score from fan_positions
                except
                select fan_id, leaderboard_position, leaderboard_previous_position, leaderboard_score from marts.fan_engagement
                where is_on_leaderboard
            )
        )
        or fan_id in (
            select fan_id from (
                select fan_id, leaderboard_position, leaderboard_previous_position, leaderboard_score from marts.fan_engagement
                where is_on_leaderboard
                except
                select fan_id, leaderboard_position, leaderboard_previous_position, leaderboard_score from fan_positions
            )
        )
        or exists (
            select 1 from marts.fan_engagement
            where leaderboard_season_id is distinct from (select season_id from current_season)
                or leaderboard_season_name is distinct from (select season_name from current_season)
        )
        or not exists (select 1 from marts.fan_engagement)

),

final as (

    select
        fans.fan_id,
        fans.customer_profile_id,
        fans.first_name,
        fans.last_name,

        -- leaderboard
        current_season.season_id as leaderboard_season_id,
        current_season.season_name as leaderboard_season_name,
        fan_positions.fan_id is not null as is_on_leaderboard,
        fan_positions.leaderboard_position,
        fan_positions.leaderboard_previous_position,
        fan_positions.leaderboard_score,

        -- spend and attendance (completed orders)
        fans.has_ticketing_account,
        fans.tickets_bought,
        fans.ticket_spend,
        fans.merchandise_orders,
        fans.merchandise_spend,
        fans.ticket_spend + fans.merchandise_spend as total_spend,
        fans.matches_attended,
        fans.last_purchase_at,

    from fans
    semi join computed_fans
        on computed_fans.fan_id = fans.fan_id
    left join current_season
        on true
    left join fan_positions
        on fan_positions.fan_id = fans.fan_id

)

select * from final
