import type { DuckDBConnection } from '@duckdb/node-api';
import { queryRows } from '../core/duckdb.js';

/** A source record as `marts.fan_identity_links` places it. */
export interface LinkedRecord {
  system: string;
  recordId: string;
  fanId: string;
}

/** A source record as a ground truth places it (the simulator's `truth()`). */
export interface TruthRecord {
  system: string;
  recordId: string;
  personId: number | string;
}

/** Precision and recall over one kind of record pair. */
export interface PairScore {
  /** Of the pairs of this kind put in one fan, the share that are one person; 1 when no pair was. */
  precision: number;
  /** Of the pairs of this kind that are one person, the share put in one fan; 1 when there is none. */
  recall: number;
  predictedPairs: number;
  truePairs: number;
  correctPairs: number;
}

/** The systems of each side of a cross-system pair: a ticketing record and an engagement one. */
const TICKETING_SYSTEMS = new Set(['ticketing_user', 'ticketing_member']);

/** Pairwise quality of identity resolution; pairs are unordered pairs of distinct records. */
export interface IdentityScore {
  /** Of the record pairs put in one fan, the share that are one person; 1 when no pair was. */
  precision: number;
  /** Of the record pairs that are one person, the share put in one fan; 1 when there is none. */
  recall: number;
  /** Record pairs put in one fan. */
  predictedPairs: number;
  /** Record pairs that are one person. */
  truePairs: number;
  /** Record pairs that are both. */
  correctPairs: number;
  /** Truth records found in the links. */
  scoredRecords: number;
  /** Truth records the links lack; each is scored as a fan of its own. */
  missingRecords: number;
  /** Linked records the truth does not know; not scored. */
  unknownRecords: number;
  /** Records linked more than once (the contract says exactly once); the first link is scored. */
  duplicateLinks: number;
  /** The same over cross-system pairs alone: a ticketing record (user, member) and an engagement one (profile, person). */
  crossSystem: PairScore;
}

/**
 * Scores fan links against a ground truth by counting pairs per group: C(n, 2) summed over
 * fans, over persons, and over (fan, person) intersections, so the cost is linear in the
 * number of records however large the clusters.
 *
 * @example
 * const score = scoreIdentityLinks(await readFanIdentityLinks(connection), simulator.truth());
 * console.log(score.precision, score.recall);
 */
export function scoreIdentityLinks(links: Iterable<LinkedRecord>, truth: Iterable<TruthRecord>): IdentityScore {
  const fanOf = new Map<string, string>();
  let duplicateLinks = 0;
  for (const link of links) {
    const key = recordKey(link.system, link.recordId);
    if (fanOf.has(key)) duplicateLinks++;
    else fanOf.set(key, link.fanId);
  }

  const perFan = new Map<string, number>();
  const perPerson = new Map<string, number>();
  const perBoth = new Map<string, number>();
  // per group, its ticketing and its engagement records: a group's cross-system pairs are their product
  const crossFan = new Map<string, [number, number]>();
  const crossPerson = new Map<string, [number, number]>();
  const crossBoth = new Map<string, [number, number]>();
  const seen = new Set<string>();
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

/** Every row of `marts.fan_identity_links`, for {@link scoreIdentityLinks}. */
export async function readFanIdentityLinks(connection: DuckDBConnection): Promise<LinkedRecord[]> {
  const rows = await queryRows(connection, 'select fan_id, system, record_id from marts.fan_identity_links');
  return rows.map((row) => ({ fanId: String(row.fan_id), system: String(row.system), recordId: String(row.record_id) }));
}

function recordKey(system: string, recordId: string): string {
  return `${system}:${recordId}`;
}

function increment(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function incrementSide(counts: Map<string, [number, number]>, key: string, side: 0 | 1): void {
  const sides = counts.get(key) ?? [0, 0];
  sides[side]++;
  counts.set(key, sides);
}

function crossPairs(counts: Map<string, [number, number]>): number {
  let total = 0;
  for (const [ticketing, engagement] of counts.values()) total += ticketing * engagement;
  return total;
}

function pairs(counts: Map<string, number>): number {
  let total = 0;
  for (const n of counts.values()) total += (n * (n - 1)) / 2;
  return total;
}
