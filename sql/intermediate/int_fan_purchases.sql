-- materialized: incremental
-- unique_key: fan_id
-- incremental_delete: fan_id in (select fan_id from macros.fans_dropped('intermediate.int_fan_purchases'))
-- lineage_columns: changed_at
-- description: One row per fan (int_fan_contacts): what marts.dim_fan takes from tickets and merchandise, null where the fan has none. Tickets count for the account that bought them, attendance for the one that held them: tickets_bought counts sold tickets of completed orders, a season ticket once (its sale, not its seats); matches_attended counts real matches attended on an issued ticket (int_ticket_kinds); merchandise counts completed order lines. counted_ticket_ids lists the tickets the fan's figures count, so that a ticket that leaves the fan (changes hands, is cancelled) finds the fan it counted for. Incremental: a build computes the fans int_fan_changes stamped since its last build (a record that moved: the user accounts' fans), the fans whose accounts buy or hold a ticket int_ticket_kinds computed since (changed_at), the fans that counted such a ticket before, and, once fct_merchandise_lines was built since, the fans whose merchandise figures differ from the stored ones (all fans' merchandise is cheap to sum); it deletes the fans gone (macros.fans_dropped: looked for only when the row counts say some are); changed_at says when a build last computed the fan (dim_fan reads it).
-- test: unique(fan_id)
-- test: not_null(fan_id, changed_at)

with

fans as (

    select fan_id from intermediate.int_fan_contacts

),

-- each ticketing account's fan, by the account's id
ticketing_users as not materialized (

    select * from intermediate.int_ticketing_user_fans

),

-- the tickets int_ticket_kinds computed since this model's last build (every one before its first)
changed_tickets as (

    select ticket_id from intermediate.int_ticket_kinds
    where changed_at > coalesce(macros.model_built_at('intermediate.int_fan_purchases'), '-infinity')

),

-- every fan's merchandise, compared below with what the fans' rows hold, once fct_merchandise_lines
-- was built since this model's last build (no line changed otherwise: a quiet hour skips it)
merchandise_by_fan as (

    select
        ticketing_users.fan_id,
        count(distinct merchandise_lines.order_id) as merchandise_orders,
        -- stored as a decimal of 18 digits, which a scan reads at a fraction of the cost of 38's
        cast(sum(merchandise_lines.line_revenue) as decimal(18, 2)) as merchandise_spend,
        min(merchandise_lines.ordered_at) as first_merchandise_purchase_at,
        max(merchandise_lines.ordered_at) as last_merchandise_purchase_at,

    from marts.fct_merchandise_lines as merchandise_lines
    inner join ticketing_users
        on ticketing_users.user_id = merchandise_lines.user_id
    where merchandise_lines.is_completed
        and macros.model_built_at('marts.fct_merchandise_lines') > coalesce(macros.model_built_at('intermediate.int_fan_purchases'), '-infinity')
    group by ticketing_users.fan_id

),

-- the accounts that buy or hold a changed ticket, both found in one pass over the tickets
changed_ticket_users as (

    select unnest([tickets.buyer_user_id, tickets.holder_user_id]) as user_id
    from marts.fct_tickets as tickets
    where tickets.ticket_id in (select ticket_id from changed_tickets)

),

-- fans a change touches without reading this model: a record moved or changed, a ticket's buyer or holder now
touched_fans as (

    select fan_id from intermediate.int_fan_changes
    where changed_at > coalesce(macros.model_built_at('intermediate.int_fan_purchases'), '-infinity')

    union

    select ticketing_users.fan_id
    from changed_ticket_users
    inner join ticketing_users
        on ticketing_users.user_id = changed_ticket_users.user_id

),

-- The fans this build computes. One condition that reads this table, which the first build (and
-- --full-refresh) drops: every fan. A ticket that leaves a fan names the fan only in the row
-- that counted it; merchandise, summed for every fan, is compared with the rows both ways.
computed_fans as (

    select fan_id from fans
    where fan_id in (select fan_id from touched_fans)
        or fan_id in (
            select stored.fan_id
            from (select fan_id, unnest(counted_ticket_ids) as ticket_id from intermediate.int_fan_purchases) as stored
            -- as a list unnested: DuckDB hashes the few changed tickets, not the stored lists' million
            where stored.ticket_id in (select unnest(list(ticket_id)) from changed_tickets)
        )
        or fan_id in (
            select fan_id from (
                select fan_id, merchandise_orders, merchandise_spend, first_merchandise_purchase_at, last_merchandise_purchase_at from merchandise_by_fan
                except
                select fan_id, merchandise_orders, merchandise_spend, first_merchandise_purchase_at, last_merchandise_purchase_at from intermediate.int_fan_purchases
                where merchandise_orders is not null
            )
        )
        or fan_id in (
            select fan_id from (
                select fan_id, merchandise_orders, merchandise_spend, first_merchandise_purchase_at, last_merchandise_purchase_at from intermediate.int_fan_purchases
                where merchandise_orders is not null
                    and macros.model_built_at('marts.fct_merchandise_lines') > coalesce(macros.model_built_at('intermediate.int_fan_purchases'), '-infinity')
                except
                select fan_id, merchandise_orders, merchandise_spend, first_merchandise_purchase_at, last_merchandise_purchase_at from merchandise_by_fan
            )
        )
        or not exists (select 1 from intermediate.int_fan_purchases)

),

computed_users as (

    select user_id, fan_id from ticketing_users
    where fan_id in (select unnest(list(fan_id)) from computed_fans)

),

-- the computed fans' merchandise
merchandise_purchases as (

    select
        computed_users.fan_id,
        count(distinct merchandise_lines.order_id) as merchandise_orders,
        cast(sum(merchandise_lines.line_revenue) as decimal(18, 2)) as merchandise_spend,
        min(merchandise_lines.ordered_at) as first_merchandise_purchase_at,
        max(merchandise_lines.ordered_at) as last_merchandise_purchase_at,

    from marts.fct_merchandise_lines as merchandise_lines
    inner join computed_users
        on computed_users.user_id = merchandise_lines.user_id
    where merchandise_lines.is_completed
    group by computed_users.fan_id

),

-- every ticket a computed fan's accounts bought or held (found before its kind is joined: a
-- quiet build's fans hold a few thousand of the million tickets)
fan_tickets_only as materialized (

    select
        tickets.ticket_id,
        tickets.match_id,
        tickets.ticket_price,
        tickets.ordered_at,
        tickets.is_sold,
        tickets.buyer_user_id,
        tickets.holder_user_id,

    from marts.fct_tickets as tickets
    where tickets.buyer_user_id in (select user_id from computed_users)
        or tickets.holder_user_id in (select user_id from computed_users)

),

fan_tickets as (

    select
        fan_tickets_only.*,
        buyers.fan_id as buyer_fan_id,
        holders.fan_id as holder_fan_id,
        -- a season ticket counts once, as its sale; the seats it gives on each match are not purchases
        fan_tickets_only.is_sold and ticket_kinds.ticket_kind <> 'season_ticket_seat' as is_counted_purchase,
        -- real matches only, on tickets of completed orders (int_ticket_kinds)
        ticket_kinds.is_counted_attendance,

    from fan_tickets_only
    inner join intermediate.int_ticket_kinds as ticket_kinds
        on ticket_kinds.ticket_id = fan_tickets_only.ticket_id
    left join computed_users as buyers
        on buyers.user_id = fan_tickets_only.buyer_user_id
    left join computed_users as holders
        on holders.user_id = fan_tickets_only.holder_user_id

),

ticket_purchases as (

    select
        buyer_fan_id as fan_id,
        count(*) as tickets_bought,
        cast(sum(ticket_price) as decimal(18, 2)) as ticket_spend,
        min(ordered_at) as first_ticket_purchase_at,
        max(ordered_at) as last_ticket_purchase_at,

    from fan_tickets
    where buyer_fan_id is not null
        and is_counted_purchase
    group by buyer_fan_id

),

attendance as (

    select
        holder_fan_id as fan_id,
        count(distinct match_id) as matches_attended,

    from fan_tickets
    where holder_fan_id is not null
        and is_counted_attendance
    group by holder_fan_id

),

-- the tickets each fan's figures count, bought or attended, once each, in a set order (two
-- builds of the same tickets write the same list): one grouping of the fans' tickets, which
-- cost less than a list of each kind made distinct and sorted for each fan
counted_tickets as (

    select
        fan_id,
        list(ticket_id order by ticket_id) as counted_ticket_ids,

    from (
        select buyer_fan_id as fan_id, ticket_id from fan_tickets
        where buyer_fan_id is not null
            and is_counted_purchase

        union

        select holder_fan_id as fan_id, ticket_id from fan_tickets
        where holder_fan_id is not null
            and is_counted_attendance
    )
    group by fan_id

),

final as (

    select
        computed_fans.fan_id,
        ticket_purchases.tickets_bought,
        ticket_purchases.ticket_spend,
        ticket_purchases.first_ticket_purchase_at,
        ticket_purchases.last_ticket_purchase_at,
        attendance.matches_attended,
        merchandise_purchases.merchandise_orders,
        merchandise_purchases.merchandise_spend,
        merchandise_purchases.first_merchandise_purchase_at,
        merchandise_purchases.last_merchandise_purchase_at,
        coalesce(counted_tickets.counted_ticket_ids, []) as counted_ticket_ids,
        now() as changed_at,

    from computed_fans
    left join ticket_purchases
        on ticket_purchases.fan_id = computed_fans.fan_id
    left join attendance
        on attendance.fan_id = computed_fans.fan_id
    left join merchandise_purchases
        on merchandise_purchases.fan_id = computed_fans.fan_id
    left join counted_tickets
        on counted_tickets.fan_id = computed_fans.fan_id

)

select * from final
