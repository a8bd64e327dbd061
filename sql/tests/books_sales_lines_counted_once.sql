-- description: Books that balance: every ticket and merchandise line loaded lands in exactly one category. A ticket is one kind (int_ticket_kinds) and, when it carries a price or is a sale, exactly one revenue line (int_revenue_lines) in one status group; a merchandise line is exactly one revenue line. A row here is a record counted twice or not at all, so revenue is wrong by its amount.
-- severity: error
-- show: 20
-- key: raw.ticketing_tickets 'ticket:' || id
-- key: raw.ticketing_merchandise 'merchandise:' || cast(id as varchar)
-- key: intermediate.int_ticket_kinds 'ticket:' || ticket_id
-- key: intermediate.int_revenue_lines line_id
-- key: marts.fct_tickets 'ticket:' || ticket_id

with

raw_tickets as not materialized (

    select * from raw.ticketing_tickets

),

raw_merchandise as not materialized (

    select * from raw.ticketing_merchandise

),

ticket_kinds as not materialized (

    select * from intermediate.int_ticket_kinds

),

revenue_lines as not materialized (

    select * from intermediate.int_revenue_lines

),

fct_tickets as (

    select * from marts.fct_tickets

),

ticket_kind_counts as (

    select
        raw_tickets.id as record_id,
        count(ticket_kinds.ticket_id) as kinds,

    from raw_tickets
    left join ticket_kinds
        on ticket_kinds.ticket_id = raw_tickets.id
    group by raw_tickets.id

),

line_counts as (

    select
        line_id,
        count(*) as lines,

    from revenue_lines
    group by line_id

),

-- a ticket with a price, or of a product line, must be a revenue line
ticket_lines as (

    select
        'ticket' as record_kind,
        ticket_kind_counts.record_id,
        ticket_kind_counts.kinds,
        coalesce(line_counts.lines, 0) as revenue_lines,
        coalesce(fct_tickets.ticket_price, 0) <> 0 or ticket_kinds.product_line is not null as must_be_revenue,

    from ticket_kind_counts
    left join ticket_kinds
        on ticket_kinds.ticket_id = ticket_kind_counts.record_id
    left join fct_tickets
        on fct_tickets.ticket_id = ticket_kind_counts.record_id
    left join line_counts
        on line_counts.line_id = 'ticket:' || ticket_kind_counts.record_id

),

merchandise_lines as (

    select
        'merchandise' as record_kind,
        cast(raw_merchandise.id as varchar) as record_id,
        1 as kinds,
        coalesce(line_counts.lines, 0) as revenue_lines,
        true as must_be_revenue,

    from raw_merchandise
    left join line_counts
        on line_counts.line_id = 'merchandise:' || cast(raw_merchandise.id as varchar)

),

-- and no revenue line without its record
orphan_lines as (

    select
        split_part(revenue_lines.line_id, ':', 1) as record_kind,
        revenue_lines.line_id as record_id,
        0 as kinds,
        1 as revenue_lines,
        true as must_be_revenue,

    from revenue_lines
    left join raw_tickets
        on revenue_lines.line_id = 'ticket:' || raw_tickets.id
    left join raw_merchandise
        on revenue_lines.line_id = 'merchandise:' || cast(raw_merchandise.id as varchar)
    where raw_tickets.id is null
        and raw_merchandise.id is null

),

records as (

    select * from ticket_lines
    union all
    select * from merchandise_lines
    union all
    select * from orphan_lines

),

final as (

    select * from records
    where kinds <> 1
        or revenue_lines <> case when must_be_revenue then 1 else 0 end

)

select * from final
