-- materialized: table
-- description: One row per fan with a loyalty summary (the opt-in FANLAKE_ENGAGEMENT_LOYALTY=true; without it this model is not built): point balance, rank and distinctions beside ticket and merchandise spend from dim_fan. A summary read by an e-mail or phone that profiles of several fans carry could be any of theirs, so it is left out. Amounts in NOK incl. VAT.
-- test: unique(fan_id)
-- test: not_null(fan_id, customer_profile_id, loyalty_balance, ticket_spend, merchandise_spend, total_spend)
-- test: relationships(fan_id -> marts.dim_fan.fan_id)
-- test: relationships(customer_profile_id -> staging.stg_engagement__customer_profiles.customer_profile_id)

with

loyalty_summaries as (

    select * from staging.stg_engagement__loyalty_summaries
    where vanished_at is null

),

customer_profiles as (

    select * from staging.stg_engagement__customer_profiles
    where vanished_at is null

),

clusters as (

    select * from intermediate.int_identity_clusters

),

fans as (

    select * from marts.dim_fan

),

-- The extractor asks for a profile's summary by its e-mail, else its phone, and the API
-- answers with the individual holding that credential.
profile_credentials as (

    select
        customer_profiles.customer_profile_id,
        clusters.fan_id,
        coalesce('email:' || customer_profiles.email, 'phone:' || customer_profiles.phone_e164) as credential,

    from customer_profiles
    inner join clusters
        on clusters.system = 'engagement_customer_profile'
        and clusters.record_id = cast(customer_profiles.customer_profile_id as varchar)

),

shared_credentials as (

    select
        credential,

    from profile_credentials
    where credential is not null
    group by credential
    having count(distinct fan_id) > 1

),

-- a fan with several profiles shows the summary with the most points
fan_summaries as (

    select
        profile_credentials.fan_id,
        loyalty_summaries.*,

    from loyalty_summaries
    inner join profile_credentials
        on profile_credentials.customer_profile_id = loyalty_summaries.customer_profile_id
    left join shared_credentials
        on shared_credentials.credential = profile_credentials.credential
    where shared_credentials.credential is null
    qualify row_number() over (
        partition by profile_credentials.fan_id
        order by loyalty_summaries.loyalty_balance desc nulls last, loyalty_summaries.customer_profile_id
    ) = 1

),

final as (

    select
        fan_summaries.fan_id,
        fan_summaries.customer_profile_id,

        -- loyalty
        fan_summaries.loyalty_balance,
        fan_summaries.loyalty_rank_id,
        fan_summaries.loyalty_rank_name,
        fan_summaries.loyalty_rank_threshold,
        fan_summaries.distinctions_earned,

        -- spend and attendance (completed orders)
        fans.tickets_bought,
        fans.ticket_spend,
        fans.merchandise_orders,
        fans.merchandise_spend,
        fans.ticket_spend + fans.merchandise_spend as total_spend,
        fans.matches_attended,

    from fan_summaries
    inner join fans
        on fans.fan_id = fan_summaries.fan_id

)

select * from final
