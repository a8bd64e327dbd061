-- description: Whether two texts are at most n edits apart (Damerau-Levenshtein: a character added, dropped, changed, or two swapped), NULL when either is. DuckDB's damerau_levenshtein costs tens of microseconds on an e-mail address, and nearly every pair the identity model compares differs by far more, so cheap tests that any pair within n edits passes come first: lengths at most n apart, and for one edit, an unchanged first or last half (an edit at or after the middle leaves the first half as it was, one before it the last).
create or replace macro macros.within_edits(a, b, n) as
    case
        when a is null or b is null then null
        when abs(length(a) - length(b)) > n then false
        when n = 1 and not (
            left(a, greatest(least(length(a), length(b)) // 2 - 1, 0)) = left(b, greatest(least(length(a), length(b)) // 2 - 1, 0))
            or right(a, greatest(least(length(a), length(b)) // 2 - 1, 0)) = right(b, greatest(least(length(a), length(b)) // 2 - 1, 0))
        ) then false
        else damerau_levenshtein(a, b) <= n
    end;
