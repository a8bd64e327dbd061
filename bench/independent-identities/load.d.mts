/** Types of load.mjs, for the TypeScript tests that load the set. */
export function writeExtraction(dataDir: string, raw: Record<string, Record<string, unknown>[]>): Promise<void>;
