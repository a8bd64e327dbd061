-- description: One row per row of a table shaped like the identity fields models (named by fields_table: int_identity_ticketing_fields, int_identity_engagement_fields, or a part of them) with its record key and the values int_identity_records keeps of it, normalized alike across systems: the phone's last eight digits, names folded, the address as its comparison reads it. A macro, so int_identity_records computes them only for the rows it chose (the rows read since its last build, to compare with its own; the records it computes again), which a filter on one CTE of every row does not.
create or replace macro macros.identity_record_keys(fields_table) as table
    with

    fields as (
        select
            *,
            -- once: DuckDB evaluated the expression twice when the key below wrote it twice
            regexp_replace(phone_raw, '[^0-9]', '', 'g') as phone_digits,
        from query_table(fields_table)
    ),

    -- Names and places repeat (a few thousand first names, streets and towns among hundreds of
    -- thousands of records): each distinct one is folded once and looked up, not per record.
    first_names as (
        select first_name, macros.first_name_key(first_name) as first_name_key
        from (select distinct first_name from fields)
    ),

    last_names as (
        select last_name, macros.last_name_key(last_name) as last_name_key
        from (select distinct last_name from fields)
    ),

    -- the address as its one comparison reads it (street line, postal code, town apart: a
    -- postal code or town is shared, a street line in one of them is not)
    streets as (
        select street, nullif(trim(regexp_replace(macros.name_folded(street), '[^a-z0-9]+', ' ', 'g')), '') as street_key
        from (select distinct street from fields)
    ),

    postal_codes as (
        select postal_code, nullif(regexp_replace(postal_code, '[^0-9]', '', 'g'), '') as postcode_key
        from (select distinct postal_code from fields)
    ),

    cities as (
        select city, nullif(regexp_replace(macros.name_folded(city), '[^a-z]', '', 'g'), '') as city_key
        from (select distinct city from fields)
    )

    select
        fields.system || ':' || fields.record_id as record_key,
        fields.system,
        fields.record_id,
        fields.customer_profile_id,
        fields.external_user_id,
        fields.email,
        fields.phone_e164,
        -- The last eight digits: one number written as E.164, 00-prefixed, national with or
        -- without trunk 0, grouped or as a tel: URI gives one key, whatever its country.
        case when length(fields.phone_digits) >= 8 then right(fields.phone_digits, 8) end as phone_key,
        fields.first_name,
        fields.last_name,
        -- Names case- and accent-folded (sql/macros): "ANNE-MARIE" and "Anne Marie" compare on "anne".
        first_names.first_name_key,
        last_names.last_name_key,
        fields.birth_date,
        streets.street_key,
        postal_codes.postcode_key,
        cities.city_key,
    from fields
    -- a NULL field meets no row: its key is NULL, as the macros give it
    left join first_names on first_names.first_name = fields.first_name
    left join last_names on last_names.last_name = fields.last_name
    left join streets on streets.street = fields.street
    left join postal_codes on postal_codes.postal_code = fields.postal_code
    left join cities on cities.city = fields.city;
