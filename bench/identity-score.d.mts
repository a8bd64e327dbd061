/** Types of identity-score.mjs, for the TypeScript tests that score identity resolution. */
import type { DuckDBConnection } from '@duckdb/node-api';

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

/** Scores fan links against a ground truth by counting pairs per group (see identity-score.mjs). */
export function scoreIdentityLinks(links: Iterable<LinkedRecord>, truth: Iterable<TruthRecord>): IdentityScore;

/** Every row of `marts.fan_identity_links`, for {@link scoreIdentityLinks}. */
export function readFanIdentityLinks(connection: DuckDBConnection): Promise<LinkedRecord[]>;

/** A record's evidence as readIdentityEvidence reads it: values as "kind value" (NULL where the record has none). */
export interface IdentityEvidence {
  record_key: string;
  evidence: (string | null)[];
  name_pair_spelling: string | null;
  first_name_key: string | null;
}

/** Each record's e-mail, phone, birth date, address, profile and user as evidence values, from a built warehouse. */
export function readIdentityEvidence(connection: DuckDBConnection): Promise<IdentityEvidence[]>;

/** Values on more records than this are placeholders, not a household's. */
export const HOUSEHOLD_VALUE_CAP: number;

/** Pairs of one kind and how many of them were put in one fan. */
export interface PairsTogether {
  pairs: number;
  together: number;
}

/** A truth record with the noise kinds that changed it (the noisy simulator's and the independent set's). */
export interface NoisyTruthRecord extends TruthRecord {
  noise?: string[] | null;
}

/**
 * Pairs of one person's records where one goes by a short form (noise kind `shortForm`): all;
 * those sharing an e-mail, phone or birth date; and of those, the ones whose first names the
 * club's default first_name_forms.csv relates (`known`) or not (`unknown`).
 */
export function scoreShortForms(links: readonly LinkedRecord[], truth: readonly NoisyTruthRecord[], records: readonly IdentityEvidence[]): Record<'all' | 'agreeing' | 'known' | 'unknown', PairsTogether>;

/** Twins (two persons sharing a birth date and an e-mail, phone or address): how many pairs, merged with named records, or by a nameless record only. */
export function scoreTwins(links: readonly LinkedRecord[], truth: readonly TruthRecord[], records: readonly IdentityEvidence[]): { pairs: number; merged: number; nameless: number };
