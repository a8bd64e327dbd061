-- description: An e-mail address as matching compares it: trimmed and lowercased, NULL when empty. Nothing else is rewritten: a messy address is data.
create or replace macro macros.email_normalized(email) as
    nullif(lower(trim(email)), '');
