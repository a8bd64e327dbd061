// Identity resolution quality: pairwise precision and recall of marts.fan_identity_links
// against a ground truth, each beside the goal (precision >= 0.995, recall >= 0.99):
// the noisy simulator (--noise) at scale 1 over three seeds, and at scale 10 once with
// --identity-scale10 (about ten minutes more on a shared machine, so not by default); the
// independent identity set (bench/independent-identities: @faker-js/faker, its own noise,
// loaded through the extractor's sink and `fanlake load`); the simulator without noise at
// scale 0.1, the figure this benchmark reported first; the set without e-mail or phone
// (bench/contactless-identities: names, birth dates and addresses, noise in half the records).
// Beside each overall figure: the same over cross-system pairs (a ticketing record and an
// engagement one), and precision over household-shaped pairs (records sharing an e-mail, a
// phone or a postal address).
// Usage alone: node bench/identity.mjs [--identity-scale10] [--bin <another checkout's bin/fanlake>]
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { HOUSEHOLD_VALUE_CAP, readFanIdentityLinks, readIdentityEvidence, scoreIdentityLinks, scoreShortForms, scoreTwins } from './identity-score.mjs';
import { independentIdentities } from './independent-identities/index.mjs';
import { writeExtraction } from './independent-identities/load.mjs';
import { contactlessIdentities } from './contactless-identities/index.mjs';
import { BIN, CREDENTIALS, flag, fmt, runOk, startSimulator, tempDir } from './lib.mjs';

/** The goals for pairwise precision and recall. */
export const IDENTITY_GOALS = { precision: 0.995, recall: 0.99 };
const NOISY_SEEDS = [11, 12, 13];
const INDEPENDENT = { persons: 2000, seed: 3 };
const CONTACTLESS = { persons: 2000, seed: 3 };
/** The fanlake that builds: this checkout's, or another's (`--bin`) to measure it alike. */
const bin = flag('--bin') ?? BIN;

export async function benchIdentity({ identityScale10 = process.argv.includes('--identity-scale10') } = {}) {
  const rows = [];
  const noisy = [];
  for (const seed of NOISY_SEEDS) {
    const run = await scoreRun(1, seed, true);
    noisy.push(run.score);
    rows.push(row(`identity, noisy simulator scale 1, seed ${seed}`, run));
  }
  if (identityScale10) {
    const run = await scoreRun(10, 11, true);
    noisy.push(run.score);
    rows.push(row('identity, noisy simulator scale 10, seed 11', run));
  }
  const least = { precision: Math.min(...noisy.map((score) => score.precision)), recall: Math.min(...noisy.map((score) => score.recall)) };
  rows.push([`identity, noisy simulator: the least of the ${noisy.length} runs above`, '', figures(least), verdict(least)]);
  rows.push(row(`identity, independent set (${INDEPENDENT.persons} persons, seed ${INDEPENDENT.seed})`, await scoreIndependent(INDEPENDENT.persons, INDEPENDENT.seed)));
  rows.push(row('identity, simulator without noise, scale 0.1, seed 11', await scoreRun(0.1, 11, false)));
  rows.push(row(`identity, set without e-mail or phone (${CONTACTLESS.persons} persons, seed ${CONTACTLESS.seed})`, await scoreContactless(CONTACTLESS.persons, CONTACTLESS.seed)));
  return rows;
}

function row(label, { links, score, evidenceRecall, ceilingRecall, households, shortForms, twins }) {
  return [
    label,
    `${fmt(links.length)} records, ${fmt(new Set(links.map((link) => link.fanId)).size)} fans`,
    `${figures(score)}; cross-system ${figures(score.crossSystem)}; households precision ${fmt(households.precision, 4)} (${fmt(households.predictedPairs)} pairs), ${fmt(households.mergedShare, 4)} of ${fmt(households.apartPairs)} pairs of two persons merged` +
      `; ${shortFormFigures(shortForms)}; ${twinFigures(twins)}` +
      ` (recall where more than a name is shared: ${fmt(evidenceRecall, 4)}; the most recall without a false link: ${fmt(ceilingRecall, 4)})`,
    verdict(score),
  ];
}

/** The twin figures of scoreTwins in words. */
export function twinFigures({ pairs, merged, nameless }) {
  return `twins merged ${fmt(merged)} of ${fmt(pairs)} (a nameless record in the other twin's fan: ${fmt(nameless)})`;
}

/** The short-form figures of scoreShortForms in words. */
export function shortFormFigures({ all, agreeing, known, unknown }) {
  const share = ({ pairs, together }) => `${fmt(pairs === 0 ? 1 : together / pairs, 4)} of ${fmt(pairs)}`;
  return `short-form pairs recall ${share(all)}, where contact or birth date agree ${share(agreeing)} (forms in the club's default file ${share(known)}, not in it ${share(unknown)})`;
}

function figures(score) {
  return `precision ${fmt(score.precision, 4)}, recall ${fmt(score.recall, 4)}`;
}

function verdict(score) {
  const goal = `(>= ${IDENTITY_GOALS.precision}, >= ${IDENTITY_GOALS.recall})`;
  const missed = [score.precision < IDENTITY_GOALS.precision && 'precision', score.recall < IDENTITY_GOALS.recall && 'recall'].filter(Boolean);
  return missed.length === 0 ? `ok ${goal}` : `MISSED ${missed.join(' and ')} ${goal}`;
}

/** Extracts, loads and builds identity resolution from a fresh simulator; its links, truth and score. */
export async function scoreRun(scale, seed, noise) {
  const sim = await startSimulator(['--scale', String(scale), '--seed', String(seed), '--admin', ...(noise ? ['--noise'] : [])]);
  const dataDir = tempDir('fanlake-bench-id-');
  try {
    const env = { FANLAKE_TICKETING_URL: sim.url, FANLAKE_ENGAGEMENT_URL: sim.url, FANLAKE_DATA_DIR: dataDir, ...CREDENTIALS };
    for (const args of [['extract'], ['load'], ['build', '--select', '+fan_identity_links']]) {
      await runOk(args, env, { bin });
    }
    const truth = (await (await fetch(`${sim.url}/__admin/truth`)).text()).trim().split('\n').map((line) => JSON.parse(line));
    return await scored(dataDir, truth);
  } finally {
    await sim.stop();
    // Hundreds of MB at scale 10: a bench run must not fill the disk of whoever runs it.
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * Generates the independent identity set (bench/independent-identities), writes it as an
 * extraction run, loads and builds identity resolution; its links, truth and score.
 */
export async function scoreIndependent(persons, seed) {
  return scoreSet(independentIdentities({ persons, seed }));
}

/** The same for the set without e-mail or phone (bench/contactless-identities). */
export async function scoreContactless(persons, seed) {
  return scoreSet(contactlessIdentities({ persons, seed }));
}

/**
 * Writes a labelled set (`raw` items and `truth`) as an extraction run, loads and builds identity
 * resolution on a fresh data dir; its links, truth and score, and what `more` reads from the
 * built warehouse (a read-only connection) under `more`.
 */
export async function scoreSet(set, more) {
  const dataDir = tempDir('fanlake-bench-set-');
  try {
    await writeExtraction(dataDir, set.raw);
    for (const args of [['load'], ['build', '--select', '+fan_identity_links']]) {
      await runOk(args, { FANLAKE_DATA_DIR: dataDir }, { bin });
    }
    return await scored(dataDir, set.truth, more);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The links of a built warehouse scored against the truth; beside the score, the recall over
 * only the pairs that share more than a name (see evidenceTruth): what the goal's recall
 * would be if pairs with nothing but a name in common were not counted, for whoever owns it.
 */
async function scored(dataDir, truth, more) {
  const instance = await DuckDBInstance.create(join(dataDir, 'warehouse.duckdb'), { access_mode: 'READ_ONLY' });
  try {
    const connection = await instance.connect();
    const links = await readFanIdentityLinks(connection);
    const records = await readIdentityEvidence(connection);
    const extra = await more?.(connection, links);
    connection.closeSync();
    const evidenceGroups = evidenceTruth(truth, records);
    return {
      links,
      truth,
      score: scoreIdentityLinks(links, truth),
      evidenceRecall: scoreIdentityLinks(links, evidenceGroups).recall,
      ceilingRecall: scoreIdentityLinks(ceilingLinks(truth, records, evidenceGroups), truth).recall,
      households: householdScore(links, truth, records),
      shortForms: scoreShortForms(links, truth, records),
      twins: scoreTwins(links, truth, records),
      more: extra,
    };
  } finally {
    instance.closeSync();
  }
}

/**
 * Precision over household-shaped pairs: two records sharing an e-mail, a phone or a postal
 * address (a value on at most HOUSEHOLD_VALUE_CAP records), put in one fan; and of those
 * pairs that are two persons (partners, twins, namesakes at one address), the share merged.
 */
function householdScore(links, truth, records) {
  const fanOf = new Map(links.map((link) => [`${link.system}:${link.recordId}`, link.fanId]));
  const personOf = new Map(truth.map((record) => [`${record.system}:${record.recordId}`, String(record.personId)]));
  const holders = new Map();
  for (const record of records) {
    if (!personOf.has(record.record_key)) continue;
    for (const value of record.evidence) {
      if (value === null || !/^(email|phone|address) /.test(value)) continue;
      holders.set(value, [...(holders.get(value) ?? []), record.record_key]);
    }
  }
  const seen = new Set();
  let predictedPairs = 0;
  let correctPairs = 0;
  let apartPairs = 0;
  let mergedApart = 0;
  for (const keys of holders.values()) {
    if (keys.length < 2 || keys.length > HOUSEHOLD_VALUE_CAP) continue;
    for (let i = 0; i < keys.length; i++) {
      for (let j = i + 1; j < keys.length; j++) {
        const pair = keys[i] < keys[j] ? `${keys[i]} ${keys[j]}` : `${keys[j]} ${keys[i]}`;
        if (seen.has(pair)) continue;
        seen.add(pair);
        const together = fanOf.get(keys[i]) === fanOf.get(keys[j]);
        const same = personOf.get(keys[i]) === personOf.get(keys[j]);
        if (together) predictedPairs++;
        if (together && same) correctPairs++;
        if (!same) apartPairs++;
        if (!same && together) mergedApart++;
      }
    }
  }
  return {
    precision: predictedPairs === 0 ? 1 : correctPairs / predictedPairs,
    predictedPairs,
    apartPairs,
    mergedShare: apartPairs === 0 ? 0 : mergedApart / apartPairs,
  };
}

/**
 * The truth with each person cut into groups of records joined, directly or through the
 * person's other records, by a shared value of readIdentityEvidence: two records of one person in
 * different groups have nothing but (at most) a name in common.
 */
function evidenceTruth(truth, records) {
  const evidenceOf = new Map(records.map((record) => [record.record_key, record.evidence.filter((value) => value !== null)]));
  const byPerson = new Map();
  for (const record of truth) byPerson.set(record.personId, [...(byPerson.get(record.personId) ?? []), record]);
  const refined = [];
  for (const [person, members] of byPerson) {
    const parent = members.map((_, at) => at);
    const root = (at) => (parent[at] === at ? at : (parent[at] = root(parent[at])));
    const holder = new Map();
    members.forEach((record, at) => {
      for (const value of evidenceOf.get(`${record.system}:${record.recordId}`) ?? []) {
        if (holder.has(value)) parent[root(at)] = root(holder.get(value));
        else holder.set(value, at);
      }
    });
    members.forEach((record, at) => refined.push({ ...record, personId: `${person}#${root(at)}` }));
  }
  return refined;
}

/**
 * The links of a matcher that never links two people but knows more than any can: each
 * person's records joined by a shared value of readIdentityEvidence (`groups`, from evidenceTruth), and the
 * records of a name that nobody else's records carry (spelt as matching compares names:
 * folded, transliterated, in either order). Their recall is the most any matcher can reach
 * without a false link on these records; two records that share only a name also carried by
 * someone else cannot be told from two namesakes.
 */
function ceilingLinks(truth, records, groups) {
  const groupOf = new Map(groups.map((record) => [`${record.system}:${record.recordId}`, record.personId]));
  const personOf = new Map(truth.map((record) => [`${record.system}:${record.recordId}`, String(record.personId)]));
  const parent = new Map([...new Set(groupOf.values())].map((group) => [group, group]));
  const root = (group) => (parent.get(group) === group ? group : parent.set(group, root(parent.get(group))).get(group));
  const byName = new Map();
  for (const record of records) {
    if (record.name_pair_spelling === null || !personOf.has(record.record_key)) continue;
    const keys = byName.get(record.name_pair_spelling) ?? [];
    keys.push(record.record_key);
    byName.set(record.name_pair_spelling, keys);
  }
  for (const keys of byName.values()) {
    if (new Set(keys.map((key) => personOf.get(key))).size !== 1) continue;
    for (const key of keys.slice(1)) parent.set(root(groupOf.get(key)), root(groupOf.get(keys[0])));
  }
  return groups.map((record) => ({ system: record.system, recordId: record.recordId, fanId: root(groupOf.get(`${record.system}:${record.recordId}`)) }));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const line of await benchIdentity()) console.log(line.join('  '));
}
