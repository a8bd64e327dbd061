-- materialized: table
-- description: One row per code or text the loaded data uses that the club's mappings must give a meaning, with how many records carry it and its state: mapped, unmapped (the mapping does not know it), or contradicting (the mapping knows its id under another name or text: the id may mean something else at this club). mapping: consent (ticketing id_consent_basic and name; engagement consent text id and text), order_status (tickets' and merchandise's status id and name), order_type (tickets' order_type and order_type_txt), sales_channel (tickets' order_channel, merchandise's sale_channel_txt). meaning says what the mapping makes of a mapped code. What fanlake doctor and the data-quality report list; tests/consents_mapped, tests/order_statuses_mapped, tests/order_types_mapped and tests/sales_channels_mapped fail on what is not mapped.
-- test: unique(mapping, source, code_id, code_name)
-- test: not_null(mapping, source, state, records)
-- test: accepted_values(mapping: consent, order_status, order_type, sales_channel)
-- test: accepted_values(state: mapped, unmapped, contradicting)

with

user_permissions as (

    select * from staging.stg_ticketing__user_permissions

),

consents as (

    select * from staging.stg_engagement__consents
    where vanished_at is null

),

consent_texts as (

    select * from staging.stg_engagement__consent_texts

),

-- not materialized: read three times, each for a code or two; a shared copy held the code
-- columns of every ticket
tickets as not materialized (

    select * from staging.stg_ticketing__tickets

),

-- not materialized: read twice, as the tickets are
merchandise as not materialized (

    select * from staging.stg_ticketing__merchandise

),

consent_meanings as (

    select * from intermediate.int_club_consent_meanings

),

order_status_groups as (

    select * from intermediate.int_club_order_status_groups

),

order_type_groups as (

    select * from intermediate.int_club_order_type_groups

),

sales_channels as (

    select * from intermediate.int_club_sales_channels

),

-- every code as the data carries it, with its record count
seen as (

    select 'consent' as mapping, 'ticketing' as source, consent_type_id as code_id, consent_name as code_name, count(*) as records
    from user_permissions
    group by all

    union all

    select 'consent', 'engagement', consents.consent_text_id, consent_texts.consent_text, count(*)
    from consents
    left join consent_texts
        on consent_texts.consent_text_id = consents.consent_text_id
    group by all

    union all

    select 'order_status', 'tickets', order_status_id, order_status_name, count(*)
    from tickets
    group by all

    union all

    select 'order_status', 'merchandise', order_status_id, order_status_name, count(*)
    from merchandise
    group by all

    union all

    select 'order_type', 'tickets', order_type_id, order_type_text, count(*)
    from tickets
    where order_type_id is not null
    group by all

    union all

    select 'sales_channel', 'tickets', null, order_channel, count(*)
    from tickets
    where order_channel is not null
    group by all

    union all

    select 'sales_channel', 'merchandise', null, sale_channel, count(*)
    from merchandise
    where sale_channel is not null
    group by all

),

-- what each mapping says of a code (one line, several channels of one consent together), and
-- the ids it knows at all, so a known id under another name is told from an unknown one
meanings as (

    select
        'consent' as mapping,
        system as source,
        consent_id as code_id,
        consent_name as code_name,
        string_agg(purpose || ' ' || coalesce(channel, 'none'), ', ' order by purpose, channel) as meaning,
        min(display_name) as display_name,

    from consent_meanings
    group by system, consent_id, consent_name

    union all

    select 'order_status', source.source, order_status_id, order_status_name, status_group, order_status_name
    from order_status_groups
    cross join (values ('tickets'), ('merchandise')) as source(source)

    union all

    select 'order_type', 'tickets', order_type_id, order_type_name, product_line, order_type_name
    from order_type_groups

    union all

    select 'sales_channel', resource, null, channel, case when is_app then 'app' else 'not app' end, display_name
    from sales_channels

),

known_ids as (

    select distinct
        mapping,
        source,
        code_id,

    from meanings
    where code_id is not null

),

final as (

    select
        seen.mapping,
        seen.source,
        seen.code_id,
        seen.code_name,
        seen.records,
        case
            when meanings.mapping is not null then 'mapped'
            when known_ids.mapping is not null and seen.code_name is not null then 'contradicting'
            else 'unmapped'
        end as state,
        meanings.meaning,
        meanings.display_name,

    from seen
    left join meanings
        on meanings.mapping = seen.mapping
        and meanings.source = seen.source
        and meanings.code_id is not distinct from seen.code_id
        and meanings.code_name = seen.code_name
    left join known_ids
        on known_ids.mapping = seen.mapping
        and known_ids.source = seen.source
        and known_ids.code_id = seen.code_id

)

select * from final
