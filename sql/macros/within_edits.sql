-- description: Whether two texts are at most n edits apart (Damerau-Levenshtein: a character added, dropped, changed, or two swapped), NULL when either is. DuckDB's damerau_levenshtein costs tens of microseconds on an e-mail address, and nearly every pair the identity model compares differs by far more, so cheap tests that decide first: two equal texts (a street line shared by a pair of one address, where the edits were counted in full); lengths more than n apart; for one edit, an unchanged first or last half (an edit at or after the middle leaves the first half as it was, one before it the last), and texts of one length (in bytes, as damerau_levenshtein and hamming count): one byte changed is one edit, three or more are more than one (a swap changes two), so only two changed bytes are counted in full.
create or replace macro macros.within_edits(a, b, n) as
    case
        when a is null or b is null then null
        when a = b then n >= 0
        when abs(length(a) - length(b)) > n then false
        -- hamming only where the byte lengths agree (it fails otherwise): inside its own CASE, as
        -- DuckDB may test the parts of an `and` in any order; before the halves, as it decides
        -- most texts of one length (postal codes) alone, and the halves never refuse a text one
        -- byte apart (one character changed, its first or last half as it was)
        when n = 1 and (case when strlen(a) = strlen(b) then hamming(a, b) end) <= 1 then true
        when n = 1 and (case when strlen(a) = strlen(b) then hamming(a, b) end) > 2 then false
        -- b starting (ending) with a's half is the halves equal, with half the cuts and lengths counted
        -- (a's first k characters are a prefix of b's bytes exactly when they are b's first k)
        when n = 1 and not (
            starts_with(b, left(a, greatest(least(length(a), length(b)) // 2 - 1, 0)))
            or ends_with(b, right(a, greatest(least(length(a), length(b)) // 2 - 1, 0)))
        ) then false
        else damerau_levenshtein(a, b) <= n
    end;
