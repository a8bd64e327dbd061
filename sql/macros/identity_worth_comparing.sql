-- description: The pairs of a table of pairs (pairs_table: lower_number, higher_number and any other columns, kept) that are worth the identity model's comparison, their records (l and r) read from a table of rows shaped like int_identity_comparables (records_table), by cheap tests: it shares an e-mail or a phone; or nothing in it says two people (both names alike, as written or crossed, or the first names forms of one name by the club's first_name_forms.csv, or a word of one the start or end of a word of the other, of three letters or more (the level name_part as shipped), or one first name or a slip of it with one birth date or one a digit apart at one street line or a slip of it, in one postal code or town or in a postal code and town each with a slip (a last name replaced: a marriage); birth dates not different beyond the slips the model knows: two digits, a day, day and month swapped, where macros.identity_birth_dates_tell_apart() says a birth date tells people apart); or, where the model weighs unrelated first names as evidence (macros.identity_first_names_tell_apart() false), one street (street lines alike, the postal code or town the same) and birth date and last names alike, as written or crossed; or it agrees on at least three of four facts (birth date within a digit or day and month swapped, initials, a word of the name, the address: a street line in one postal code or town, a postal code or a town), as twins and a name changed by marriage do. A block under its cap holds more people by chance as the club grows (one birth date and first name, one street line in two towns): the pairs these tests drop are those, and they grow with the club while the pairs kept grow with its records (docs/decisions.md "Blocking that stays flat"). A table macro over the joined columns, not a scalar one handed two rows: DuckDB packs a row handed to a macro into a struct again at every field it reads, which cost most of the pairs' build. The tests are written so that a filter stops early: the cheap ones first, and "three of four facts" as "the initials and the address and one more, or one of those two and both others", so the words of the names are compared only for the few pairs where they decide.
create or replace macro macros.identity_worth_comparing(pairs_table, records_table) as table
    select pairs.*
    from query_table(pairs_table) as pairs
    inner join query_table(records_table) as l on l.record_number = pairs.lower_number
    inner join query_table(records_table) as r on r.record_number = pairs.higher_number
    where
        coalesce(l.email = r.email, false)
        or coalesce(l.phone_key = r.phone_key, false)
        or (
            -- birth dates not different beyond the slips the model knows, where the model says a birth date tells people
            -- apart (cheaper than the names, and false for a third of the pairs)
            not coalesce(
                macros.identity_birth_dates_tell_apart()
                and hamming(l.birth_date_digits, r.birth_date_digits) > 2
                and l.birth_date_digits <> left(r.birth_date_digits, 4) || right(r.birth_date_digits, 2) || substr(r.birth_date_digits, 5, 2)
                and abs(date_diff('day', l.birth_date_key, r.birth_date_key)) > 1,
                false
            )
            and (
                (
                    (
                        macros.name_alike(l.first_name_spelling, r.first_name_spelling)
                        or coalesce(list_has_any(l.first_name_forms, r.first_name_tokens) or list_has_any(r.first_name_forms, l.first_name_tokens) or list_has_any(l.first_name_forms, r.first_name_forms), false)
                        -- a word of one the start or end of a word of the other: for one word each (most names) without the lambdas
                        or coalesce(
                            case
                                when len(l.first_name_tokens) = 1 and len(r.first_name_tokens) = 1
                                    then least(length(l.first_name_tokens[1]), length(r.first_name_tokens[1])) >= 3
                                        and (starts_with(l.first_name_tokens[1], r.first_name_tokens[1]) or starts_with(r.first_name_tokens[1], l.first_name_tokens[1])
                                            or ends_with(l.first_name_tokens[1], r.first_name_tokens[1]) or ends_with(r.first_name_tokens[1], l.first_name_tokens[1]))
                                else list_bool_or(list_transform(l.first_name_tokens, left_word -> list_bool_or(list_transform(r.first_name_tokens, right_word ->
                                    least(length(left_word), length(right_word)) >= 3
                                    and (starts_with(left_word, right_word) or starts_with(right_word, left_word) or ends_with(left_word, right_word) or ends_with(right_word, left_word))))))
                            end,
                            false
                        )
                    )
                    and macros.name_alike(l.last_name_spelling, r.last_name_spelling)
                )
                or (macros.name_alike(l.first_name_spelling, r.last_name_spelling) and macros.name_alike(l.last_name_spelling, r.first_name_spelling))
                -- a last name replaced (a marriage, or written anew): one first name or a slip of it, one birth date or a
                -- digit apart, at one street line or a slip of it in one postal code or town, or in a postal code and town
                -- each with a slip (without the birth date, or without the place, the pairs grew with the club: one first
                -- name in one block of flats; one birth date and first name at another house of a street in another town);
                -- bare, not in coalesce (NULL is false here too): DuckDB tests an `and` part by part, the cheapest first,
                -- where inside a function it computes every part for every pair
                or (
                    hamming(l.birth_date_digits, r.birth_date_digits) <= 1
                    and (l.postcode_key = r.postcode_key or l.city_key = r.city_key or (macros.within_edits(l.postcode_key, r.postcode_key, 1) and macros.within_edits(l.city_key, r.city_key, 1)))
                    and macros.within_edits(l.street_key, r.street_key, 1)
                    and (
                        list_has_any(l.first_name_tokens, r.first_name_tokens)
                        or macros.within_edits(l.first_name_spelling, r.first_name_spelling, 1)
                        or jaro_winkler_similarity(l.first_name_spelling, r.first_name_spelling) >= 0.88
                    )
                )
            )
        )
        -- where the model weighs unrelated first names as evidence: one street (street lines alike, the postal code or
        -- the town the same) and birth date, and last names alike, as written or crossed (a slip in the last name is
        -- no word in common, so three of four facts below miss it); a street and a birth date meet by chance rarely
        -- (a town and a birth date with a common surname grew ninefold per record from scale 1 to 10)
        or (
            not macros.identity_first_names_tell_apart()
            and coalesce(l.birth_date_key = r.birth_date_key, false)
            -- the place before Jaro-Winkler of the streets, each in a coalesce of its own, so the `and` computes it
            -- only for the pairs of one postal code or town
            and coalesce(l.postcode_key = r.postcode_key or l.city_key = r.city_key, false)
            and coalesce(jaro_winkler_similarity(l.street_key, r.street_key) >= 0.88, false)
            and (macros.name_alike(l.last_name_spelling, r.last_name_spelling) or macros.name_alike(l.first_name_spelling, r.last_name_spelling) or macros.name_alike(l.last_name_spelling, r.first_name_spelling))
        )
        -- at least three of four facts: the initials, the address (macros.addresses_near), the birth date
        -- (macros.birth_dates_slipped), a word of the name in common; so at least one of the first two (rare in
        -- a block), and the words compared last
        or (
            coalesce(l.initials = r.initials, false)
            and macros.addresses_near(l.street_key, l.postcode_key, l.city_key, r.street_key, r.postcode_key, r.city_key)
            and (
                macros.birth_dates_slipped(l.birth_date_digits, r.birth_date_digits)
                or coalesce(list_has_any(list_concat(l.first_name_tokens, l.last_name_tokens), list_concat(r.first_name_tokens, r.last_name_tokens)), false)
            )
        )
        or (
            (coalesce(l.initials = r.initials, false) or macros.addresses_near(l.street_key, l.postcode_key, l.city_key, r.street_key, r.postcode_key, r.city_key))
            and macros.birth_dates_slipped(l.birth_date_digits, r.birth_date_digits)
            and coalesce(list_has_any(list_concat(l.first_name_tokens, l.last_name_tokens), list_concat(r.first_name_tokens, r.last_name_tokens)), false)
        );
