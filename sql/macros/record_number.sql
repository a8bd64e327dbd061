-- description: A record's number, which identity resolution joins and groups on (integers join faster than text): a 64-bit hash of its key (int_identity_records.record_key), so a record keeps its number as others come and go, and any model can compute it from a key without a join. The records test that no two numbers collide (unique(record_number)).
create or replace macro macros.record_number(record_key) as
    hash(record_key);
