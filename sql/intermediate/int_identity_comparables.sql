-- materialized: view
-- description: One row per record with exactly the values the identity model compares (macros.identity_levels takes two rows of this view) and blocks on (macros.identity_block_keys): names as token sets and spellings with how common each is (as the model in force froze int_identity_term_frequencies: macros.identity_model_term_frequencies), the first name's forms (the club's first_name_forms.csv: Bob is a form of Robert) and their initials, birth date, e-mail, phone, and the address as street line (and its letters, and as a place when it has no house number), postal code and town. Read by int_identity_pairs, and by training (fanlake identity train) and explain, so all three compare alike.
-- personal: first_name_spelling (name), last_name_spelling (name), first_name_tokens (name), last_name_tokens (name)
-- personal: birth_date_key (birth_date), birth_date_digits (birth_date), email (email), phone_key (phone)
-- personal: street_key (address), street_letters (address), street_place (address), postcode_key (address)
-- personal: city_key (address)
-- personal: initials (name), phone_e164 (phone), first_name_forms (name), people_first_name_spelling (name)

with

records as (

    select * from intermediate.int_identity_records

),

-- the values compared, and how common the names are (macros.identity_comparables, which
-- int_identity_ambiguous_links applies to a few records)
final as (

    select * from macros.identity_comparables('records')

)

select * from final
