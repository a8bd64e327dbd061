-- description: A name as spelt alike across systems, beside macros.name_folded (not replacing it): folded, letters only, then ø/å written oe/aa brought back to one letter and doubled letters made single, so "Bjørn"/"Bjoern", "Åse"/"Aase" and "Pettersen"/"Petersen" give one key ("bjorn", "ase", "petersen"); NULL when nothing is left.
create or replace macro macros.name_transliterated(name) as
    nullif(list_reduce(
        string_split(replace(replace(regexp_replace(macros.name_folded(name), '[^a-z]', '', 'g'), 'oe', 'o'), 'aa', 'a'), ''),
        (spelt, letter) -> case when right(spelt, 1) = letter then spelt else spelt || letter end,
        ''
    ), '');
