-- materialized: table
-- description: One row per name records carry (first and last name spelling, as int_identity_records matches them, both written), with how common it is: name_records (records carrying the pair, in either order; a common name and one birth date are no evidence of one person), name_system_records (the most that ticketing users, members or customer profiles hold under it, people counting through their profile, whose identities they are: a name a system holds twice is two people, or one person's two accounts) and name_expected_records (how many records would carry it if first and last names were drawn apart by how common each is: well under one for a rare name, whatever the fan base's size). Matching reads them (int_identity_matches). Kept apart from the records: every count moves when a record of the name, or of either of its words, comes or goes, and in the records' rows it changed nearly every row of a build.
-- test: unique(first_name_spelling, last_name_spelling)
-- test: not_null(first_name_spelling, last_name_spelling, name_pair_spelling, name_records, name_system_records)

with

records as (

    select * from intermediate.int_identity_records

),

named as (

    select
        system,
        first_name_spelling,
        last_name_spelling,
        name_pair_spelling,

    from records
    where first_name_spelling is not null and last_name_spelling is not null

),

-- each pair either way round: "Kari Hansen" and "Hansen Kari" are counted as one name
pair_counts as (

    select
        name_pair_spelling,
        count(*) as name_records,
        greatest(
            count(*) filter (where system = 'ticketing_user'),
            count(*) filter (where system = 'ticketing_member'),
            count(*) filter (where system = 'engagement_customer_profile')
        ) as name_system_records,

    from named
    group by name_pair_spelling

),

-- how common each word is as a first and as a last name (int_identity_name_words: as written,
-- which for a swapped name is the other field)
word_weights as (

    select * from intermediate.int_identity_name_words

),

-- records with a first name written: what a word's uses are a share of
first_named as (

    select sum(first_uses) as records from word_weights

),

-- each name once, with how common its words are; one join per word
names as (

    select distinct
        named.first_name_spelling,
        named.last_name_spelling,
        named.name_pair_spelling,

    from named

),

first_words as (

    select
        names.*,
        word_weights.first_weight as first_uses,

    from names
    left join word_weights
        on word_weights.word = names.first_name_spelling

),

final as (

    select
        first_words.first_name_spelling,
        first_words.last_name_spelling,
        first_words.name_pair_spelling,
        pair_counts.name_records,
        pair_counts.name_system_records,
        first_words.first_uses * last_words.last_weight / first_named.records as name_expected_records,

    from first_words
    inner join pair_counts
        on pair_counts.name_pair_spelling = first_words.name_pair_spelling
    left join word_weights as last_words
        on last_words.word = first_words.last_name_spelling
    cross join first_named

)

select * from final
