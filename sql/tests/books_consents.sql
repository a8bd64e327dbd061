-- description: Books that balance: every consent record loaded is counted once in marts.consent_ledger, as a decision the figures read or as an exclusion with its reason (unmapped, contradicting, disabled text, vanished, no decision, unknown fan). A row here is a system whose consents some model drops or counts twice without saying why.
-- severity: error

with

ledger as (

    select * from marts.consent_ledger

),

final as (

    select
        system,
        loaded,
        mapped + unmapped + contradicting + disabled_text + vanished + no_decision + unknown_fan as accounted_for,
        mapped,
        unmapped,
        contradicting,
        disabled_text,
        vanished,
        no_decision,
        unknown_fan,

    from ledger
    where loaded <> mapped + unmapped + contradicting + disabled_text + vanished + no_decision + unknown_fan

)

select * from final
