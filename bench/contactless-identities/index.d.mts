/** Types of index.mjs, for the TypeScript tests that generate the set. */
export interface ContactlessTruthRecord {
  system: 'ticketing_user' | 'engagement_customer_profile';
  recordId: string;
  personId: number;
  /** Changes this record carries (a typo, a missing value or a swap, by field). */
  noise: string[];
}

export interface ContactlessIdentities {
  /** Raw table name with its source prefix → items as the API sends them. */
  raw: Record<string, Record<string, unknown>[]>;
  truth: ContactlessTruthRecord[];
  persons: number;
}

export const CONTACTLESS_NOISE: Readonly<{ noisyRecords: number; maxChanges: number }>;

export function contactlessIdentities(options: { persons: number; seed: number }): ContactlessIdentities;
