-- description: Whether two birth dates, as their eight digits YYYYMMDD (int_identity_records.birth_date_digits), are one date but for a slip: at most one digit different, or day and month written the other way round; false when either is missing. macros.identity_worth_comparing counts it as one of the facts a pair agrees on.
create or replace macro macros.birth_dates_slipped(a, b) as
    -- each test in a coalesce of its own: the `or` between them then computes the swapped date only for the
    -- dates more than a digit apart, where one coalesce around both computed it for every pair
    coalesce(hamming(a, b) <= 1, false) or coalesce(a = left(b, 4) || right(b, 2) || substr(b, 5, 2), false);
