-- description: A name case- and accent-folded for comparison: "Åse" -> "ase", "Bjørn" -> "bjorn", "Kjær" -> "kjaer". strip_accents decomposes å and é; æ and ø have no decomposition, so they are spelt out.
create or replace macro macros.name_folded(name) as
    replace(replace(strip_accents(lower(name)), 'æ', 'ae'), 'ø', 'o');
