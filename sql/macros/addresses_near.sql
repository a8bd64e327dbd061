-- description: Whether two addresses (street line, postal code and town, as int_identity_records keys them) are one place or next to it: one street line where the postal code or the town agrees (or is missing), or one postal code, or one town; false when nothing is known. macros.identity_worth_comparing counts it as one of the facts a pair agrees on.
create or replace macro macros.addresses_near(street_a, postcode_a, city_a, street_b, postcode_b, city_b) as
    coalesce(
        (street_a = street_b and not (coalesce(postcode_a <> postcode_b, false) and coalesce(city_a <> city_b, false)))
        or postcode_a = postcode_b
        or city_a = city_b,
        false
    );
