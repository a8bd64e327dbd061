// Pairwise quality of identity resolution against a ground truth: what the identity tests
// assert and bench/identity.mjs reports. A measuring instrument, not part of fanlake, so it
// lives beside the benchmarks; its types are in identity-score.d.mts for the tests.

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
