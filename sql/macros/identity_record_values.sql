-- description: What a record brings to the identity model's comparisons, as text for an analyst ("first name kari; last name hansen; birth date 1980-05-01; ..."), from a row of intermediate.int_identity_records (records): the values as the model compares them, folded and transliterated.
create or replace macro macros.identity_record_values(records) as
    concat_ws('; ',
        'first name ' || records.first_name_spelling,
        'last name ' || records.last_name_spelling,
        'birth date ' || records.birth_date_key,
        'email ' || records.email,
        'phone ' || records.phone_key,
        'address ' || concat_ws(', ', records.street_key, records.postcode_key, records.city_key),
        'external id ' || records.external_user_id,
        'customer profile ' || records.customer_profile_id
    );
