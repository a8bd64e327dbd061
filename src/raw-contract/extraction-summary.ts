import { mkdir, readdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as z from 'zod';
import { writeFileAtomic } from '../core/atomic-file.js';
import { CODE } from '../core/error-codes.js';
import { errorRecordSchema } from '../core/error-record.js';
import { extractionSummariesDir, extractionSummaryPath } from './data-dir.js';
import { parseJson, readJsonFile } from './json-file.js';
import { RUN_ID_PATTERN } from './raw-layout.js';
import { journalPositionSchema } from '../listen/journal.js';


/** What extracting one resource came to: `partial` and `failed` make the run exit 1. */
export const EXTRACTION_STATUSES = ['ok', 'partial', 'failed', 'skipped'] as const;

const isoTimestamp = z.iso.datetime({ offset: true });
const count = z.number().int().nonnegative();

/**
 * `$DATA/runs/<run id>.json` as `extract` writes it, one per extraction run: every resource's
 * result, and the sources left out. `load` copies it into `meta.extraction_runs`; `status` shows the newest.
 */
export const extractionSummarySchema = z.object({
  runId: z.string().regex(RUN_ID_PATTERN),
  startedAt: isoTimestamp,
  finishedAt: isoTimestamp,
  results: z.array(
    z
      .object({
        source: z.string().min(1),
        resource: z.string().min(1),
        status: z.enum(EXTRACTION_STATUSES),
        rows: count,
        files: count,
        quarantined: count,
        requests: count,
        retries: count,
        seconds: z.number().nonnegative(),
        errors: z.array(errorRecordSchema).default([]),
        notes: z.array(z.string()).optional(),
        /** Summaries written before errors were structured kept errors and notes as one list of lines. */
        messages: z.array(z.string()).optional(),
      })
      .transform(({ messages, notes, ...result }) => ({ ...result, notes: notes ?? messages ?? [] })),
  ),
  /** Sources not configured: not a failure. */
  skippedSources: z.array(z.object({ source: z.string().min(1), reason: z.string() })),
  /**
   * With a push subscription: how far into the change journal this run's records reach, when
   * every endpoint the changes concern completed (a full snapshot covers what was recorded
   * before it began; a targeted run what it re-read). Load marks it consumed once they are in.
   */
  changes: z.object({ through: journalPositionSchema, mode: z.enum(['targeted', 'full']), profiles: count }).optional(),
});

export type ExtractionSummary = z.infer<typeof extractionSummarySchema>;

/** What the writer accepts: extract's results are readonly all the way down, and must still match the schema's shape. */
type DeepReadonly<T> = T extends readonly (infer U)[] ? readonly DeepReadonly<U>[] : T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> } : T;

/**
 * Validates and writes an extraction's summary atomically. The object is written as given,
 * not as parsed, so its keys keep their order and the file stays what earlier versions wrote.
 *
 * @throws FanlakeError `E_RUN_SUMMARY_INVALID` when the summary does not match its schema: a bug of the writer.
 */
export async function writeExtractionSummary(dataDir: string, summary: DeepReadonly<ExtractionSummary>): Promise<string> {
  const path = extractionSummaryPath(dataDir, summary.runId);
  parseJson(summary, extractionSummarySchema, CODE.E_RUN_SUMMARY_INVALID, 'run summary to write', path);
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, `${JSON.stringify(summary, null, 2)}\n`);
  return path;
}

/**
 * Reads and validates one extraction run summary.
 *
 * @throws FanlakeError `E_RUN_SUMMARY_INVALID` naming the file when it is not JSON or not a run summary.
 */
export function readExtractionSummary(path: string): Promise<ExtractionSummary> {
  return readJsonFile(path, extractionSummarySchema, CODE.E_RUN_SUMMARY_INVALID, 'run summary');
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
