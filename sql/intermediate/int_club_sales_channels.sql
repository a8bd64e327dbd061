-- materialized: view
-- description: The club's sales channels (seeds.sales_channels, or the club's own file of that name): each channel as tickets (order_channel) or merchandise (sale_channel_txt) spell it, with one display name across both, and whether it is the club's app (a purchase there is evidence the fan has the app, which push needs).
-- test: unique(resource, channel)
-- test: not_null(resource, channel, display_name, is_app)
-- test: accepted_values(resource: tickets, merchandise)

with

channels as (

    select * from seeds.sales_channels

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
