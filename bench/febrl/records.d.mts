/** Types of records.mjs, for the TypeScript tests that read Febrl rows. */
export const FEBRL_COLUMNS: readonly string[];
export function parseFebrlCsv(text: string): Record<string, string | null>[];
export function febrlPerson(recId: string | null): number;
export function febrlBirthDate(value: string | null): string | null;
export function febrlIdentities(
  rowsA: Record<string, string | null>[],
  rowsB: Record<string, string | null>[],
): {
  raw: Record<string, Record<string, unknown>[]>;
  truth: { system: string; recordId: string; personId: number }[];
  names: Map<string, { first: string | null; last: string | null }>;
  invalidBirthDates: number;
};
export function foldName(name: string | null): string;
export function jaroWinkler(a: string, b: string): number;
export const RELATED_JARO_WINKLER: number;
export type FirstNameRelation = 'missing' | 'same' | 'similar' | 'swapped' | 'initial' | 'unrelated';
export function firstNameRelation(a: { first: string | null; last: string | null }, b: { first: string | null; last: string | null }): FirstNameRelation;
