-- materialized: table
-- description: One row per sales channel in the data, as tickets (order_channel) or merchandise (sale_channel_txt) spell it, with the club's one name for it across both (sales_channels.csv; the spelling itself where the club has none yet) and whether it is the club's app. What reports show instead of the raw spelling.
-- test: unique(resource, channel)
-- test: not_null(resource, channel, channel_name, is_app, is_mapped)

with

club_codes as (

    select * from marts.club_codes
    where mapping = 'sales_channel'

),

sales_channels as (

    select * from intermediate.int_club_sales_channels

),

final as (

    select
        club_codes.source as resource,
        club_codes.code_name as channel,
        coalesce(sales_channels.display_name, club_codes.code_name) as channel_name,
        coalesce(sales_channels.is_app, false) as is_app,
        sales_channels.channel is not null as is_mapped,

    from club_codes
    left join sales_channels
        on sales_channels.resource = club_codes.source
        and sales_channels.channel = club_codes.code_name

)

select * from final
