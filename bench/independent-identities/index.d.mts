/** Types of index.mjs, for the TypeScript tests that generate the set. */
export interface IndependentTruthRecord {
  system: 'ticketing_user' | 'ticketing_member' | 'engagement_customer_profile' | 'engagement_person';
  recordId: string;
  personId: number;
  /** Noise kinds that changed this record (noise.mjs), plus `secondAccount`. */
  noise: string[];
}

export interface IndependentIdentities {
  /** Raw table name with its source prefix → items as the API sends them. */
  raw: Record<string, Record<string, unknown>[]>;
  truth: IndependentTruthRecord[];
  /** Persons generated, households and namesakes included. */
  persons: number;
}

export const INDEPENDENT_SHARES: Readonly<Record<string, number>>;

export function independentIdentities(options: { persons: number; seed: number }): IndependentIdentities;
