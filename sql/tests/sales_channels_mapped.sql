-- description: Every sales channel of tickets (order_channel) and merchandise (sale_channel_txt) is in the club's sales channels (sales_channels.csv), with one display name across both and whether it is the club's app. An unmapped channel shows under its own spelling, and a purchase there is no evidence of the app, so push reach may be undercounted. marts.club_codes lists every code with its state.
-- severity: warn
-- show: 100

with

club_codes as (

    select * from marts.club_codes

),

final as (

    select
        source,
        code_name as channel,
        state,
        records,

    from club_codes
    where mapping = 'sales_channel'
        and state <> 'mapped'
    order by source, channel

)

select * from final
