-- materialized: table
-- description: One row per engagement consent text with what the consent models read of it: its text, which with its id says what a consent given under it means (int_club_consent_meanings), and whether the club still stands behind it (is_enabled). A table of its own, not a view, because every run reads the texts again: its content changes only when a text does, and int_engagement_consent_events, which every consent given under a text reads, builds in full on that change (full_rebuild_on) instead of computing every fan with consents after each read.
-- test: unique(consent_text_id)
-- test: not_null(consent_text_id)

with

consent_texts as (

    select * from staging.stg_engagement__consent_texts

),

final as (

    select
        consent_text_id,
        consent_text,
        is_enabled,

    from consent_texts

)

select * from final
