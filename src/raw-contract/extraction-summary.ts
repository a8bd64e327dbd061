import { mkdir, readdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../core/atomic-file.js';
import { extractionSummariesDir, extractionSummaryPath } from './data-dir.js';
import { parseJson, readJsonFile } from './json-file.js';

const SUMMARY_INVALID = 'E_RUN_SUMMARY_INVALID';

/** `$DATA/runs/<run id>.json` as `extract` writes it; only what `meta.extraction_runs` keeps. */
export const runSummarySchema = z.object({
  runId: z.string().min(1),
  startedAt: z.string(),
  finishedAt: z.string(),
  results: z.array(
    z.object({
      source: z.string(),
      resource: z.string(),
      status: z.string(),
      rows: z.number(),
      quarantined: z.number(),
      requests: z.number(),
      retries: z.number(),
      seconds: z.number(),
      messages: z.array(z.string()),
    }),
  ),
});

export type RunSummary = z.infer<typeof runSummarySchema>;

/**
 * Validates and writes an extraction's summary atomically. The summary is written as given
 * (validation only checks it), so fields the schema does not list still reach the file.
 *
 * @throws FanlakeError `E_RUN_SUMMARY_INVALID` when the summary does not match its schema: a bug of the writer.
 */
export async function writeExtractionSummary(dataDir: string, summary: { readonly runId: string }): Promise<string> {
  const path = extractionSummaryPath(dataDir, summary.runId);
  parseJson(summary, runSummarySchema, SUMMARY_INVALID, 'run summary to write', path);
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, `${JSON.stringify(summary, null, 2)}\n`);
  return path;
}

/**
 * Reads and validates one extraction run summary.
 *
 * @throws FanlakeError `E_RUN_SUMMARY_INVALID` naming the file when it is not JSON or not a run summary.
 */
export function readExtractionSummary(path: string): Promise<RunSummary> {
  return readJsonFile(path, runSummarySchema, SUMMARY_INVALID, 'run summary');
}

/** One summary file under `$DATA/runs`; `runId` is the file's name, the summary inside should agree. */
export interface ExtractionSummaryFile {
  runId: string;
  path: string;
}

/** Every extraction run summary file, oldest run first; none when nothing was extracted yet. */
export async function listExtractionSummaries(dataDir: string): Promise<ExtractionSummaryFile[]> {
  const files = await readdir(extractionSummariesDir(dataDir)).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  // Run ids start with their UTC start time, so names sort by run.
  return files
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => {
      const runId = name.slice(0, -'.json'.length);
      return { runId, path: extractionSummaryPath(dataDir, runId) };
    });
}
