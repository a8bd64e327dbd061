-- description: A last name folded (macros.name_folded) with everything but a-z removed: "Berg-Hansen" and "Berg Hansen" both give "berghansen"; NULL when nothing is left.
create or replace macro macros.last_name_key(name) as
    nullif(regexp_replace(macros.name_folded(name), '[^a-z]', '', 'g'), '');
