-- description: A postal address as one key, for the benchmarks' evidence of a shared address (bench/identity-score.mjs; identity resolution compares its parts, street line, postal code and town, and no model keeps this key): the street line folded (macros.name_folded) with everything but letters and digits removed, and the postal code's digits: "Storgata 12B, 0150" and "STORGATA 12 b" with 0150 give "storgata12b 0150". NULL unless both parts are there: a street name alone recurs in many towns. Each part is computed once: `||` gives NULL when either part is NULL.
create or replace macro macros.address_key(street, postal_code) as
    nullif(regexp_replace(macros.name_folded(street), '[^a-z0-9]', '', 'g'), '')
        || ' ' || nullif(regexp_replace(postal_code, '[^0-9]', '', 'g'), '');
