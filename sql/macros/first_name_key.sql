-- description: The first given name, folded (macros.name_folded): "ANNE-MARIE" and "Anne Marie" both give "anne"; NULL when nothing is left.
create or replace macro macros.first_name_key(name) as
    nullif(regexp_extract(macros.name_folded(name), '^[^ ,.-]+'), '');
