-- description: Every consent the loaded data uses means something in the club's mapping (consent_meanings.csv), keyed as each API identifies it: ticketing id_consent_basic and name, engagement consent text id and text. An unmapped consent (unknown id) or a contradicting one (known id under another name or text, which may mean another channel at this club) counts as no grant, and its refusals and revocations keep the fan from every purpose and channel until it is mapped: consent figures are incomplete. marts.club_codes lists every code with its state.
-- severity: error
-- show: 100

with

club_codes as (

    select * from marts.club_codes

),

final as (

    select
        source,
        code_id,
        code_name,
        state,
        records,

    from club_codes
    where mapping = 'consent'
        and state <> 'mapped'
    order by source, code_id, code_name

)

select * from final
