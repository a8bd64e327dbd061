-- materialized: view
-- description: The club's sales channels (the club's sales_channels.csv, or the default: macros.club_sales_channels()): each channel as tickets (order_channel) or merchandise (sale_channel_txt) spell it, with one display name across both, and whether it is the club's app (a purchase there is evidence the fan has the app, which push needs).
-- test: unique(resource, channel)
-- test: not_null(resource, channel, display_name, is_app)
-- test: accepted_values(resource: tickets, merchandise)

with

channels as (

    select * from macros.club_sales_channels()

),

final as (

    select
        lower(trim(cast(resource as varchar))) as resource,
        cast(channel as varchar) as channel,
        cast(display_name as varchar) as display_name,
        coalesce(try_cast(is_app as boolean), false) as is_app,

    from channels

)

select * from final
