-- description: The pairs of a table of pairs (pairs_table: lower_number, higher_number and any other columns, kept) that are worth the identity model's comparison, their records (l and r) read from a table of rows shaped like int_identity_comparables (records_table), by cheap tests: it shares an e-mail or a phone; or nothing in it says two people (both names alike, as written or crossed, or the first names forms of one name by the club's first_name_forms.csv, or a word of one the start or end of a word of the other, of three letters or more (the level name_part as shipped); birth dates not different beyond the slips the model knows: two digits, a day, day and month swapped); or it agrees on at least three of four facts (birth date within a digit or day and month swapped, initials, a word of the name, the address: a street line in one postal code or town, a postal code or a town), as twins and a name changed by marriage do. A block under its cap holds more people by chance as the club grows (one birth date and first name, one street line in two towns): the pairs these tests drop are those, and they grow with the club while the pairs kept grow with its records (docs/decisions.md "Blocking that stays flat"). A table macro over the joined columns, not a scalar one handed two rows: DuckDB packs a row handed to a macro into a struct again at every field it reads, which cost most of the pairs' build.
create or replace macro macros.identity_worth_comparing(pairs_table, records_table) as table
    select pairs.*
    from query_table(pairs_table) as pairs
    inner join query_table(records_table) as l on l.record_number = pairs.lower_number
    inner join query_table(records_table) as r on r.record_number = pairs.higher_number
    where
        coalesce(l.email = r.email or l.phone_key = r.phone_key, false)
        or (
            (
                (
                    (
                        macros.name_alike(l.first_name_spelling, r.first_name_spelling)
                        or coalesce(list_has_any(l.first_name_forms, r.first_name_tokens) or list_has_any(r.first_name_forms, l.first_name_tokens) or list_has_any(l.first_name_forms, r.first_name_forms), false)
                        or coalesce(list_bool_or(list_transform(l.first_name_tokens, left_word -> list_bool_or(list_transform(r.first_name_tokens, right_word ->
                            least(length(left_word), length(right_word)) >= 3
                            and (starts_with(left_word, right_word) or starts_with(right_word, left_word) or ends_with(left_word, right_word) or ends_with(right_word, left_word)))))), false)
                    )
                    and macros.name_alike(l.last_name_spelling, r.last_name_spelling)
                )
                or (macros.name_alike(l.first_name_spelling, r.last_name_spelling) and macros.name_alike(l.last_name_spelling, r.first_name_spelling))
            )
            and not coalesce(
                hamming(l.birth_date_digits, r.birth_date_digits) > 2
                and l.birth_date_digits <> left(r.birth_date_digits, 4) || right(r.birth_date_digits, 2) || substr(r.birth_date_digits, 5, 2)
                and abs(date_diff('day', l.birth_date_key, r.birth_date_key)) > 1,
                false
            )
        )
        or (
            coalesce(hamming(l.birth_date_digits, r.birth_date_digits) <= 1 or l.birth_date_digits = left(r.birth_date_digits, 4) || right(r.birth_date_digits, 2) || substr(r.birth_date_digits, 5, 2), false)::integer
            + coalesce(l.initials = r.initials, false)::integer
            + coalesce(list_has_any(list_concat(l.first_name_tokens, l.last_name_tokens), list_concat(r.first_name_tokens, r.last_name_tokens)), false)::integer
            + coalesce(
                (l.street_key = r.street_key and not (coalesce(l.postcode_key <> r.postcode_key, false) and coalesce(l.city_key <> r.city_key, false)))
                or l.postcode_key = r.postcode_key
                or l.city_key = r.city_key,
                false
            )::integer
        ) >= 3;
