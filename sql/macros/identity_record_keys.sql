-- description: One row per row of a table shaped like the identity fields models (named by fields_table: int_identity_ticketing_fields, int_identity_engagement_fields, or a part of them) with its record key and the values int_identity_records keeps of it, normalized alike across systems: the phone's last eight digits, names folded, the address as its comparison reads it. A macro, so int_identity_records computes them only for the rows it chose (the rows read since its last build, to compare with its own; the records it computes again), which a filter on one CTE of every row does not.
create or replace macro macros.identity_record_keys(fields_table) as table
    select
        system || ':' || record_id as record_key,
        system,
        record_id,
        customer_profile_id,
        external_user_id,
        email,
        phone_e164,
        -- The last eight digits: one number written as E.164, 00-prefixed, national with or
        -- without trunk 0, grouped or as a tel: URI gives one key, whatever its country.
        case when length(phone_digits) >= 8 then right(phone_digits, 8) end as phone_key,
        first_name,
        last_name,
        -- Names case- and accent-folded (sql/macros): "ANNE-MARIE" and "Anne Marie" compare on "anne".
        macros.first_name_key(first_name) as first_name_key,
        macros.last_name_key(last_name) as last_name_key,
        birth_date,
        address_key,
        -- the address as its one comparison reads it (street line, postal code, town apart:
        -- a postal code or town is shared, a street line in one of them is not)
        nullif(trim(regexp_replace(macros.name_folded(street), '[^a-z0-9]+', ' ', 'g')), '') as street_key,
        nullif(regexp_replace(postal_code, '[^0-9]', '', 'g'), '') as postcode_key,
        nullif(regexp_replace(macros.name_folded(city), '[^a-z]', '', 'g'), '') as city_key,
    from (
        select
            *,
            -- once: DuckDB evaluated the expression twice when the key above wrote it twice
            regexp_replace(phone_raw, '[^0-9]', '', 'g') as phone_digits,
        from query_table(fields_table)
    );
