-- description: A phone number as written by people (spaces, dashes, 00 or + prefix) in E.164 (`+4790123456`), or NULL when it does not become one. A bare 8-digit number not starting with 0 gets the default country code, macros.phone_default_country_code(), which build creates from FANLAKE_PHONE_DEFAULT_COUNTRY_CODE (+47 by default). See docs/decisions.md "Phone normalization".
create or replace macro macros.phone_e164(phone) as
    nullif(regexp_extract(
        regexp_replace(
            regexp_replace(regexp_replace(phone, '[^0-9+]', '', 'g'), '^00', '+'),
            '^([1-9][0-9]{7})$',
            macros.phone_default_country_code() || '\1'
        ),
        '^\+[1-9][0-9]{6,14}$'
    ), '');
