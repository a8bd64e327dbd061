-- description: Every word of a name field, each transliterated (macros.name_transliterated): "Kari-Marie Åsen" -> [kari, marie, asen]; NULL when none is left. Given names compare on these, so a middle name written in one system only still leaves the first name shared.
create or replace macro macros.name_tokens(name) as
    nullif(list_filter(
        list_transform(string_split_regex(macros.name_folded(name), '[^a-z]+'), word -> macros.name_transliterated(word)),
        word -> word is not null
    ), []);
