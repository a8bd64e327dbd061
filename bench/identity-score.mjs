// Pairwise quality of identity resolution against a ground truth: what the identity tests
// assert and bench/identity.mjs reports. A measuring instrument, not part of fanlake, so it
// lives beside the benchmarks; its types are in identity-score.d.mts for the tests.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Scores fan links against a ground truth by counting pairs per group: C(n, 2) summed over
 * fans, over persons, and over (fan, person) intersections, so the cost is linear in the
 * number of records however large the clusters.
 *
 * @example
 * const score = scoreIdentityLinks(await readFanIdentityLinks(connection), simulator.truth());
 * console.log(score.precision, score.recall);
 * @param {Iterable<import('./identity-score.d.mts').LinkedRecord>} links
 * @param {Iterable<import('./identity-score.d.mts').TruthRecord>} truth
 * @returns {import('./identity-score.d.mts').IdentityScore}
 */
/** The systems of the ticketing side of a cross-system pair; the other side is engagement's. */
const TICKETING_SYSTEMS = new Set(['ticketing_user', 'ticketing_member']);

export function scoreIdentityLinks(links, truth) {
  const fanOf = new Map();
  let duplicateLinks = 0;
  for (const link of links) {
    const key = recordKey(link.system, link.recordId);
    if (fanOf.has(key)) duplicateLinks++;
    else fanOf.set(key, link.fanId);
  }

  const perFan = new Map();
  const perPerson = new Map();
  const perBoth = new Map();
  // per group, its ticketing and its engagement records: a group's cross-system pairs are their product
  const crossFan = new Map();
  const crossPerson = new Map();
  const crossBoth = new Map();
  const seen = new Set();
  let scoredRecords = 0;
  let missingRecords = 0;
  for (const record of truth) {
    const key = recordKey(record.system, record.recordId);
    if (seen.has(key)) continue;
    seen.add(key);
    let fan = fanOf.get(key);
    if (fan === undefined) {
      missingRecords++;
      fan = `\u0000missing\u0000${key}`;
    } else {
      scoredRecords++;
    }
    const person = String(record.personId);
    increment(perFan, fan);
    increment(perPerson, person);
    increment(perBoth, `${fan}\u0000${person}`);
    const side = TICKETING_SYSTEMS.has(record.system) ? 0 : 1;
    incrementSide(crossFan, fan, side);
    incrementSide(crossPerson, person, side);
    incrementSide(crossBoth, `${fan}\u0000${person}`, side);
  }
  let unknownRecords = 0;
  for (const key of fanOf.keys()) if (!seen.has(key)) unknownRecords++;

  const predictedPairs = pairs(perFan);
  const truePairs = pairs(perPerson);
  const correctPairs = pairs(perBoth);
  const crossPredicted = crossPairs(crossFan);
  const crossTrue = crossPairs(crossPerson);
  const crossCorrect = crossPairs(crossBoth);
  return {
    precision: predictedPairs === 0 ? 1 : correctPairs / predictedPairs,
    recall: truePairs === 0 ? 1 : correctPairs / truePairs,
    predictedPairs,
    truePairs,
    correctPairs,
    scoredRecords,
    missingRecords,
    unknownRecords,
    duplicateLinks,
    crossSystem: {
      precision: crossPredicted === 0 ? 1 : crossCorrect / crossPredicted,
      recall: crossTrue === 0 ? 1 : crossCorrect / crossTrue,
      predictedPairs: crossPredicted,
      truePairs: crossTrue,
      correctPairs: crossCorrect,
    },
  };
}

/**
 * Every row of `marts.fan_identity_links`, for {@link scoreIdentityLinks}.
 * @param {import('@duckdb/node-api').DuckDBConnection} connection
 * @returns {Promise<import('./identity-score.d.mts').LinkedRecord[]>}
 */
export async function readFanIdentityLinks(connection) {
  const rows = (await connection.runAndReadAll('select fan_id, system, record_id from marts.fan_identity_links')).getRowObjectsJson();
  return rows.map((row) => ({ fanId: String(row.fan_id), system: String(row.system), recordId: String(row.record_id) }));
}

/** Each record's values that tell a person apart from a namesake: an e-mail, a phone, a birth date, an address, a profile or user it names. */
const EVIDENCE_SQL = `
select
    records.record_key,
    [
        'email ' || email,
        'phone ' || phone_key,
        'birth date ' || birth_date_key,
        'address ' || fields.address_key,
        'profile ' || coalesce(cast(customer_profile_id as varchar), case when system = 'engagement_customer_profile' then record_id end),
        'user ' || coalesce(cast(external_user_id as varchar), case when system = 'ticketing_user' then record_id end)
    ] as evidence,
    -- the name pair in alphabetical order, so either order meets (computed here: nothing in the
    -- warehouse reads it)
    least(first_name_spelling, last_name_spelling) || ' ' || greatest(first_name_spelling, last_name_spelling) as name_pair_spelling,
    first_name_key
from intermediate.int_identity_records as records
-- the address as the platforms write it, as one key (macros.address_key; int_identity_records
-- compares it by its parts, and no model keeps a key of the whole)
left join (
    select system || ':' || record_id as record_key, macros.address_key(street, postal_code) as address_key from intermediate.int_identity_ticketing_fields
    union all
    select system || ':' || record_id as record_key, macros.address_key(street, postal_code) as address_key from intermediate.int_identity_engagement_fields
) as fields
    on fields.record_key = records.record_key`;

/**
 * Each record's evidence values (e-mail, phone, birth date, address, profile, user, each as
 * "kind value"), its name spelling and first name key, from a built warehouse.
 * @param {import('@duckdb/node-api').DuckDBConnection} connection
 */
export async function readIdentityEvidence(connection) {
  return (await connection.runAndReadAll(EVIDENCE_SQL)).getRowObjectsJson();
}

/** Values on more records than this are placeholders, not a household's. */
export const HOUSEHOLD_VALUE_CAP = 30;

/**
 * Recall over pairs of one person's records where a record goes by a short form or nickname
 * of the first name (noise kind `shortForm`): all of them; those whose records share an
 * e-mail, a phone or a birth date (where the goal says they are linked); and of those, the
 * pairs whose first names the club's default first_name_forms.csv relates (a short form of
 * the other, or two of one name) and the pairs it does not (forms a club's file misses).
 */
export function scoreShortForms(links, truth, records) {
  const fanOf = new Map(links.map((link) => [`${link.system}:${link.recordId}`, link.fanId]));
  const recordOf = new Map(records.map((record) => [record.record_key, record]));
  const formsOf = clubFirstNameForms();
  const related = (a, b) => a === b || [...(formsOf.get(a) ?? [])].some((full) => full === b || formsOf.get(b)?.has(full));
  const counts = { all: { pairs: 0, together: 0 }, agreeing: { pairs: 0, together: 0 }, known: { pairs: 0, together: 0 }, unknown: { pairs: 0, together: 0 } };
  const count = (kind, together) => {
    counts[kind].pairs++;
    if (together) counts[kind].together++;
  };
  for (const members of groupBy(truth, (record) => record.personId).values()) {
    for (let i = 0; i < members.length; i++) {
      for (let j = i + 1; j < members.length; j++) {
        if (!members[i].noise?.includes('shortForm') && !members[j].noise?.includes('shortForm')) continue;
        const [left, right] = [members[i], members[j]].map((record) => `${record.system}:${record.recordId}`);
        const together = fanOf.get(left) === fanOf.get(right);
        count('all', together);
        const [a, b] = [recordOf.get(left), recordOf.get(right)];
        const shared = (a?.evidence ?? []).filter((value) => value !== null && /^(email|phone|birth date) /.test(value) && b?.evidence.includes(value));
        if (shared.length === 0) continue;
        count('agreeing', together);
        count(related(a.first_name_key, b.first_name_key) ? 'known' : 'unknown', together);
      }
    }
  }
  return counts;
}

/** The club's default first_name_forms.csv as folded first name → the full names it is a form of (and each full name → itself). */
function clubFirstNameForms() {
  const fold = (name) => name.toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/æ/g, 'ae').replace(/ø/g, 'o');
  const forms = new Map();
  const lines = readFileSync(join(import.meta.dirname, '..', 'defaults/club/first_name_forms.csv'), 'utf8').trim().split('\n').slice(1);
  for (const [short, full] of lines.map((line) => line.split(',').map(fold))) {
    forms.set(short, (forms.get(short) ?? new Set()).add(full));
    forms.set(full, (forms.get(full) ?? new Set()).add(full));
  }
  return forms;
}

/**
 * Twins: two persons whose records share a birth date and an e-mail, a phone or an address (a
 * value on at most HOUSEHOLD_VALUE_CAP records). `merged` counts those with a record of each,
 * both with a first name, in one fan; `nameless` those with only a record without a first name
 * (of the household's mailbox, say) in the other's fan.
 */
export function scoreTwins(links, truth, records) {
  const fanOf = new Map(links.map((link) => [`${link.system}:${link.recordId}`, link.fanId]));
  const personOf = new Map(truth.map((record) => [`${record.system}:${record.recordId}`, String(record.personId)]));
  const holders = new Map();
  for (const record of records) {
    if (!personOf.has(record.record_key)) continue;
    for (const value of record.evidence) if (value !== null && /^(email|phone|address|birth date) /.test(value)) holders.set(value, [...(holders.get(value) ?? []), record.record_key]);
  }
  const personPairs = (prefixes) => {
    const found = new Set();
    for (const [value, keys] of holders) {
      if (!prefixes.some((start) => value.startsWith(start)) || keys.length > HOUSEHOLD_VALUE_CAP) continue;
      const persons = [...new Set(keys.map((key) => personOf.get(key)))].sort();
      for (let i = 0; i < persons.length; i++) for (let j = i + 1; j < persons.length; j++) found.add(`${persons[i]} ${persons[j]}`);
    }
    return found;
  };
  const housed = personPairs(['email ', 'phone ', 'address ']);
  const named = new Set(records.filter((record) => record.first_name_key !== null).map((record) => record.record_key));
  // per person, the fans of its records with a first name and of all its records
  const fansOf = new Map();
  for (const record of truth) {
    const key = `${record.system}:${record.recordId}`;
    const fans = fansOf.get(String(record.personId)) ?? { named: new Set(), all: new Set() };
    fans.all.add(fanOf.get(key));
    if (named.has(key)) fans.named.add(fanOf.get(key));
    fansOf.set(String(record.personId), fans);
  }
  const shareFan = (left, right) => [...left].some((fan) => fan !== undefined && right.has(fan));
  let pairs = 0;
  let merged = 0;
  let nameless = 0;
  for (const pair of personPairs(['birth date '])) {
    if (!housed.has(pair)) continue;
    pairs++;
    const [a, b] = pair.split(' ').map((person) => fansOf.get(person));
    if (shareFan(a.named, b.named)) merged++;
    else if (shareFan(a.all, b.all)) nameless++;
  }
  return { pairs, merged, nameless };
}

function groupBy(items, keyOf) {
  const groups = new Map();
  for (const item of items) groups.set(keyOf(item), [...(groups.get(keyOf(item)) ?? []), item]);
  return groups;
}

/** @param {string} system @param {string} recordId */
function recordKey(system, recordId) {
  return `${system}:${recordId}`;
}

/** @param {Map<string, number>} counts @param {string} key */
function increment(counts, key) {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/** @param {Map<string, [number, number]>} counts @param {string} key @param {0 | 1} side */
function incrementSide(counts, key, side) {
  const sides = counts.get(key) ?? [0, 0];
  sides[side]++;
  counts.set(key, sides);
}

/** @param {Map<string, [number, number]>} counts */
function crossPairs(counts) {
  let total = 0;
  for (const [ticketing, engagement] of counts.values()) total += ticketing * engagement;
  return total;
}

/** @param {Map<string, number>} counts */
function pairs(counts) {
  let total = 0;
  for (const n of counts.values()) total += (n * (n - 1)) / 2;
  return total;
}
