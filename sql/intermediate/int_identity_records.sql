-- materialized: incremental
-- unique_key: record_key
-- incremental_delete: record_key in (select record_key from macros.identity_records_gone('intermediate.int_identity_records', ['intermediate.int_identity_ticketing_fields', 'intermediate.int_identity_engagement_fields']))
-- lineage_columns: changed_at
-- description: One row per record that identity resolution links (ticketing users and members, engagement customer profiles and people), with the values the identity model compares, normalized alike across systems: names folded (macros.name_folded) and transliterated (macros.name_transliterated), as token sets and the right way round, the first name's forms (of any of its words, by the club's first_name_forms.csv: Bob is a form of Robert), the first name its customer profile's people agree on (two or more of them, one name), the birth date (and its digits), e-mail, phone (last 8 digits) and address (street line and its letters, postal code and town), the initials, and its entity (a customer profile and its people are one). A row holds only what its record and its customer profile's group say, and which way round its names are taken (int_identity_name_words): its record_number is a hash of its key, and how common its name is is in int_identity_term_frequencies. Incremental: a build computes the records whose fields were read since its last build (read_at) and say something else than the record's row, new records, and the records of the customer profile groups these are or were in; records gone from the fields are deleted; and the records whose name words now lean the other way (written more often as a first name than as a last name, or no longer) are computed again. changed_at says when a build last computed the record (every record whose values changed has one since; int_identity_record_changes and int_fan_contacts read only those). A changed first_name_forms.csv or spelling macro changes the model's definition, which builds it in full.
-- personal: email (email), phone_e164 (phone), phone_key (phone), first_name (name), last_name (name)
-- personal: birth_date (birth_date), street_key (address), postcode_key (address), city_key (address)
-- personal: first_name_key (name), birth_date_key (birth_date), first_name_spelling (name)
-- personal: last_name_spelling (name), first_name_tokens (name), last_name_tokens (name)
-- personal: first_name_forms (name), birth_date_digits (birth_date), street_letters (address)
-- personal: street_place (address), initials (name), people_first_name_spelling (name)
-- compression: record_key (fsst), record_id (fsst), entity_key (fsst), external_user_id (fsst), email (fsst)
-- compression: phone_e164 (fsst), phone_key (fsst), birth_date_digits (fsst), record_number (uncompressed)
-- compression: system (dictionary), first_name (dictionary), last_name (dictionary), first_name_key (dictionary)
-- compression: first_name_spelling (dictionary), last_name_spelling (dictionary), initials (dictionary)
-- compression: people_first_name_spelling (dictionary), street_key (dictionary), street_letters (dictionary)
-- compression: street_place (dictionary), postcode_key (dictionary), city_key (dictionary)
-- test: unique(record_key)
-- test: unique(record_number)
-- test: not_null(record_key, record_number, system, record_id)
-- test: accepted_values(system: ticketing_user, ticketing_member, engagement_customer_profile, engagement_person)
-- test: relationships(record_key -> intermediate.int_identity_clusters.record_key)

with

-- the fields identity resolution reads, one row per record, from each system apart (a
-- load that changes other fields, or one system's records only, rebuilds less: see the
-- fields models' descriptions)
fields as not materialized (

    select * from intermediate.int_identity_ticketing_fields
    union all by name
    select * from intermediate.int_identity_engagement_fields

),

-- those read since this model's last build
fields_read as not materialized (

    select * from fields
    where read_at > coalesce(macros.model_built_at('intermediate.int_identity_records'), '-infinity')

),

-- The records this build computes: all of them in a first build and --full-refresh (the
-- runner drops this condition). Else those whose fields were read since this model's last
-- build and say something else than its row (or have none: new records), those gone from the
-- fields, and those whose name words now lean the other way (swapped, below), with every
-- record of the customer profile groups all these are or were in (a row holds what its group
-- says). Their other records are left as they are.
computed_keys as (

    select system || ':' || record_id as record_key from fields
    where system || ':' || record_id in (
        with

        -- joined on the key alone, the values compared after: as a NOT EXISTS on every value,
        -- DuckDB hashed all twelve of every stored row (0.47 s of a quiet build's 0.7); the
        -- stored rows of the keys read only (joined to every stored row, DuckDB hashed all
        -- 613k of a scale-10 club for a few hundred read: 0.15 s), the keys as a list unnested,
        -- which DuckDB takes for few (macros.identity_records_gone), and only the columns
        -- compared (it reads them of every row the keys' range spans)
        changed as (

            select written.*
            from macros.identity_record_keys('fields_read') as written
            left join (
                select
                    record_key, customer_profile_id, external_user_id, email, phone_e164, phone_key,
                    first_name, last_name, birth_date, street_key, postcode_key, city_key,
                from intermediate.int_identity_records
                where record_key in (select unnest(list(system || ':' || record_id)) from fields_read)
            ) as stored
                on stored.record_key = written.record_key
            where stored.record_key is null
                or stored.customer_profile_id is distinct from written.customer_profile_id
                or stored.external_user_id is distinct from written.external_user_id
                or stored.email is distinct from written.email
                or stored.phone_e164 is distinct from written.phone_e164
                or stored.phone_key is distinct from written.phone_key
                or stored.first_name is distinct from written.first_name
                or stored.last_name is distinct from written.last_name
                or stored.birth_date is distinct from written.birth_date
                or stored.street_key is distinct from written.street_key
                or stored.postcode_key is distinct from written.postcode_key
                or stored.city_key is distinct from written.city_key

        ),

        -- the rows this model holds of the changed records and of those gone from the fields
        stored as (

            select record_key, customer_profile_id, first_name, last_name
            from intermediate.int_identity_records
            where record_key in (
                select record_key from changed
                union all
                select record_key from macros.identity_records_gone('intermediate.int_identity_records', ['intermediate.int_identity_ticketing_fields', 'intermediate.int_identity_engagement_fields'])
            )

        ),

        -- How many records more (or fewer) write each word as a first and as a last name than
        -- when this model last computed its rows: int_identity_name_words counts the fields as
        -- they are now, and only the changed and gone records moved its counts.
        moved_uses as (

            select
                word,
                sum(first_uses) as first_uses,
                sum(last_uses) as last_uses,

            from (
                select macros.name_transliterated(first_name_key) as word, 1 as first_uses, 0 as last_uses from changed
                union all
                select macros.name_transliterated(last_name_key), 0, 1 from changed
                union all
                select macros.name_transliterated(macros.first_name_key(first_name)), -1, 0 from stored
                union all
                select macros.name_transliterated(macros.last_name_key(last_name)), 0, -1 from stored
            )
            where word is not null
            group by word

        ),

        -- words written more often as a first than as a last name, or the other way round, or
        -- as often, that were not so before: a record that writes one may now be taken as
        -- swapped, or no longer
        turned_words as (

            select moved_uses.word
            from moved_uses
            left join intermediate.int_identity_name_words as words
                on words.word = moved_uses.word
            where sign(coalesce(words.first_uses, 0) - coalesce(words.last_uses, 0))
                <> sign(coalesce(words.first_uses, 0) - moved_uses.first_uses - coalesce(words.last_uses, 0) + moved_uses.last_uses)

        ),

        touched as (

            select record_key, customer_profile_id from changed
            union all
            select record_key, customer_profile_id from stored
            union all
            select record_key, customer_profile_id from intermediate.int_identity_records
            where first_name_spelling in (select word from turned_words)
                or last_name_spelling in (select word from turned_words)

        )

        select record_key from touched
        union all
        select system || ':' || record_id from fields
        where customer_profile_id in (select customer_profile_id from touched)
    )

),

-- Their fields rows, found by key and read by row id: filtered by key, DuckDB read every column
-- of every fields row (0.1 s of a scale-10 quiet build). Every row in a first build and
-- --full-refresh, which drop these conditions (they read this model).
computed_fields as (

    select * from intermediate.int_identity_ticketing_fields
    where rowid in (
        select unnest(list(rowid)) from intermediate.int_identity_ticketing_fields
        where system || ':' || record_id in (select record_key from computed_keys)
            and exists (select 1 from intermediate.int_identity_records)
    )
    union all by name
    select * from intermediate.int_identity_engagement_fields
    where rowid in (
        select unnest(list(rowid)) from intermediate.int_identity_engagement_fields
        where system || ':' || record_id in (select record_key from computed_keys)
            and exists (select 1 from intermediate.int_identity_records)
    )

),

keyed as (

    select * from macros.identity_record_keys('computed_fields')

),

-- A customer profile and its people are one person, so a record without a name or birth
-- date borrows the one its profile group agrees on.
profile_groups as (

    select
        customer_profile_id,
        min(first_name_key) as first_name_key,
        min(last_name_key) as last_name_key,
        min(birth_date) as birth_date,
        -- the group agrees when its smallest and largest value are one (NULL when it has none):
        -- what count(distinct ...) = 1 says, without a set of values per group
        min(first_name_key) = max(first_name_key) as first_name_agreed,
        min(last_name_key) = max(last_name_key) as last_name_agreed,
        min(birth_date) = max(birth_date) as birth_date_agreed,
        -- The first name two or more of its people write alike: the profile's own fields are
        -- calculated from its people, but each person is an identity of its own (a login, a
        -- campaign entry), so two that agree are two sources of one name (macros.identity_contradicts).
        case
            when count(first_name_key) filter (where system = 'engagement_person') >= 2
                and min(first_name_key) filter (where system = 'engagement_person') = max(first_name_key) filter (where system = 'engagement_person')
                then min(first_name_key) filter (where system = 'engagement_person')
        end as people_first_name_key,

    from keyed
    where customer_profile_id is not null
    group by customer_profile_id

),

borrowed as (

    select
        keyed.record_key,
        -- a hash of the key (a dense number in key order shifted for every record after a new
        -- one, and every row changed with it)
        macros.record_number(keyed.record_key) as record_number,
        keyed.system,
        keyed.record_id,
        keyed.customer_profile_id,
        keyed.external_user_id,
        keyed.email,
        keyed.phone_e164,
        keyed.phone_key,
        keyed.first_name,
        keyed.last_name,
        keyed.birth_date,
        keyed.street_key,
        keyed.postcode_key,
        keyed.city_key,
        -- a customer profile and its people are one person: one entity when counting people
        coalesce('engagement_customer_profile:' || keyed.customer_profile_id, keyed.record_key) as entity_key,
        coalesce(
            keyed.first_name_key,
            case when profile_groups.first_name_agreed then profile_groups.first_name_key end
        ) as first_name_key,
        coalesce(
            keyed.last_name_key,
            case when profile_groups.last_name_agreed then profile_groups.last_name_key end
        ) as last_name_key,
        coalesce(
            keyed.birth_date,
            case when profile_groups.birth_date_agreed then profile_groups.birth_date end
        ) as birth_date_key,
        profile_groups.people_first_name_key,

    from keyed
    left join profile_groups
        on profile_groups.customer_profile_id = keyed.customer_profile_id

),

-- Beside the folded keys, the transliterated ones (macros.name_transliterated): "Bjoern" and
-- "Bjørn", "Pettersen" and "Petersen" agree there. Matching compares these; the folded keys
-- stay for what reads them. Names repeat (many a Kari, many a Hansen), so each distinct key is
-- spelt once: spelling is the costly part of this model. Read from keyed, which holds every key
-- a record borrows from its profile group too, so that borrowed is read once (not copied).
key_spellings as (

    select
        name_key,
        macros.name_transliterated(name_key) as spelling,

    from (
        select first_name_key as name_key from keyed
        union
        select last_name_key as name_key from keyed
    ) as name_keys
    where name_key is not null

),

-- every name written in a field, so "Kari Marie" and "Kari" share "kari": once per distinct
-- field as written; a field of one word is its own key (the tokens' transliteration is the
-- costly part)
field_tokens as (

    select
        name_field,
        regexp_matches(trim(name_field), '[ ,.-]') as is_split,
        case when is_split then macros.name_tokens(name_field) end as tokens,

    from (
        select first_name as name_field from keyed
        union
        select last_name as name_field from keyed
    ) as name_fields
    where name_field is not null

),

spelt as (

    select
        borrowed.*,
        first_spellings.spelling as written_first_spelling,
        last_spellings.spelling as written_last_spelling,
        people_spellings.spelling as people_first_name_spelling,
        case
            when first_fields.is_split then first_fields.tokens
            when written_first_spelling is not null then [written_first_spelling]
        end as written_first_tokens,
        case
            when last_fields.is_split then last_fields.tokens
            when written_last_spelling is not null then [written_last_spelling]
        end as written_last_tokens,

    from borrowed
    left join key_spellings as first_spellings
        on first_spellings.name_key = borrowed.first_name_key
    left join key_spellings as last_spellings
        on last_spellings.name_key = borrowed.last_name_key
    left join key_spellings as people_spellings
        on people_spellings.name_key = borrowed.people_first_name_key
    left join field_tokens as first_fields
        on first_fields.name_field = borrowed.first_name
    left join field_tokens as last_fields
        on last_fields.name_field = borrowed.last_name

),

-- First and last name written in each other's fields ("Hansen Kari"): taken as swapped when
-- the first field's word is more often written as a last name and the last field's more often
-- as a first name, over all records (int_identity_name_words).
swapped as (

    select
        spelt.*,
        coalesce(first_words.last_uses > first_words.first_uses and last_words.first_uses > last_words.last_uses, false) as is_swapped,

    from spelt
    left join intermediate.int_identity_name_words as first_words
        on first_words.word = spelt.written_first_spelling
    left join intermediate.int_identity_name_words as last_words
        on last_words.word = spelt.written_last_spelling

),

-- each name the right way round
named as (

    select
        -- not kept: the last name's folded key, which nothing reads, as a table's every text
        -- column costs its share of a full build's write (the address is compared by its street
        -- line, postal code and town, and no key of the whole is kept: the fields models write none)
        swapped.* exclude (written_first_spelling, written_last_spelling, written_first_tokens, written_last_tokens, is_swapped, last_name_key, people_first_name_key, people_first_name_spelling),
        case when is_swapped then written_last_spelling else written_first_spelling end as first_name_spelling,
        case when is_swapped then written_first_spelling else written_last_spelling end as last_name_spelling,
        case when is_swapped then written_last_tokens else written_first_tokens end as first_name_tokens,
        case when is_swapped then written_first_tokens else written_last_tokens end as last_name_tokens,
        swapped.people_first_name_spelling,

    from swapped

),

-- The club's short forms and nicknames of first names (first_name_forms.csv), spelt as the
-- model compares names: each form with the full names it may stand for. A record's first name
-- is compared by these forms (level short_form): Bob and Robert, and Bob and Rob, share robert.
name_forms as (

    select
        macros.name_transliterated(macros.first_name_key(short_form)) as word,
        list(distinct macros.name_transliterated(macros.first_name_key(full_name))) as full_names,

    from macros.club_first_name_forms()
    group by all

),

-- The full names each distinct set of first-name words is a form of, over every word: "Kris
-- Øyvind" is a form of kristian as "Kris" is (the words are compared, not the whole spelling,
-- as the level exact does). Of every set a name field can have (its words, or its one
-- spelling), not only those written as first names: a few more sets, but named is read once.
token_forms as (

    select
        tokens,
        list_sort(list_distinct(flatten(list(forms.full_names)))) as full_names,

    from (
        select tokens from field_tokens where is_split and tokens is not null
        union
        select [spelling] from key_spellings where spelling is not null
    ) as names
    cross join unnest(names.tokens) as words(word)
    inner join name_forms as forms
        on forms.word = words.word
    group by tokens

),

-- The street line's letters and whether it is a place, once per distinct street line (a few
-- thousand among all records; a regular expression per record cost more than the lookup).
street_places as (

    select
        street_key,
        -- the letters of the street line, compared with the other record's town (a town written in the street field, or the other way round)
        nullif(regexp_replace(street_key, '[^a-z]', '', 'g'), '') as street_letters,
        -- a street line without a house number, blocked on as a place like a town: a town written in the street field
        case when not regexp_matches(street_key, '[0-9]') then street_letters end as street_place,

    from (select distinct street_key from keyed where street_key is not null)

),

-- What the identity model compares and blocks on beside the names, computed once per record
-- here (int_identity_comparables, which adds how common the names are, is read several times a
-- build, and a row written once costs less than these computed at every read).
final as (

    select
        named.*,
        -- every full name a word of the first name is a short form of (NULL for most names: none)
        forms.full_names as first_name_forms,
        -- its eight digits, YYYYMMDD, compared digit by digit (computed once per record here, not twice per pair)
        strftime(named.birth_date_key, '%Y%m%d') as birth_date_digits,
        street_places.street_letters,
        street_places.street_place,
        -- the first letters of both names in alphabetical order, so names written either way round meet
        least(left(named.first_name_spelling, 1), left(named.last_name_spelling, 1))
            || greatest(left(named.first_name_spelling, 1), left(named.last_name_spelling, 1)) as initials,
        -- when a build last computed the record: a record whose values changed was computed since
        -- its readers' last build, so they read these alone, not every record's values
        now() as changed_at,

    from named
    left join token_forms as forms
        on forms.tokens = named.first_name_tokens
    left join street_places
        on street_places.street_key = named.street_key

)

select * from final
