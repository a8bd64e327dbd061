-- description: A value identity resolution blocks records on (an e-mail, a phone, a name with a birth date...) as a 64-bit hash, NULL for no value: the blocks are grouped and joined on integers rather than text. Two values sharing a hash would only be compared, never linked unseen: every rule compares the records' own values.
create or replace macro macros.block_key(value) as
    case when value is not null then hash(value) end;
