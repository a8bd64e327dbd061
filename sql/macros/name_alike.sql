-- description: Whether two name spellings (as int_identity_comparables spells them) may be one name, by tests cheap enough for every candidate pair: missing on a side, one a start of the other (an initial, a name cut short), one inside the other (Lene and Helene, Stian and Kristian), one edit apart (macros.within_edits), or Jaro-Winkler at least 0.8 (below the model's 0.88, so a name the model calls alike is alike here). macros.identity_worth_comparing asks it of both names of a pair.
create or replace macro macros.name_alike(a, b) as
    a is null
    or b is null
    or a = b
    or starts_with(a, b)
    or starts_with(b, a)
    or (length(a) >= 3 and length(b) >= 3 and (contains(a, b) or contains(b, a)))
    or macros.within_edits(a, b, 1)
    or jaro_winkler_similarity(a, b) >= 0.8;
