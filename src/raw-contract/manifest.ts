import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as z from 'zod';
import { FanlakeError } from '../core/errors.js';
import { writeFileAtomic } from '../core/atomic-file.js';
import { parseJson, readJsonFile } from './json-file.js';
import { manifestPath, RUN_ID_PATTERN } from './raw-layout.js';
import type { RawRunRef } from './raw-layout.js';
import { CODE } from '../core/error-codes.js';

/** One Parquet file of a run, as the loader verifies it before reading. */
export const rawFileSchema = z.object({
  /** Relative to the data dir, `/`-separated. */
  path: z.string().min(1),
  rows: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

export type RawFile = z.infer<typeof rawFileSchema>;

const isoTimestamp = z.iso.datetime({ offset: true });

/**
 * The warehouse state a snapshot difference was cut against, and the only state the load
 * applies it onto (docs/decisions.md, "Differences that know their base"): the run last
 * loaded into the raw table, with the time of the load that loaded it (another load of the
 * same run, as in a rebuilt warehouse, is another state), and the table's row count.
 */
export const differenceBaseSchema = z.object({
  runId: z.string().regex(RUN_ID_PATTERN),
  /** `loaded_at` of that run's ledger row, to the microsecond, in UTC. */
  loadedAt: z.string().min(1),
  rows: z.number().int().nonnegative(),
});

export type DifferenceBase = z.infer<typeof differenceBaseSchema>;

/**
 * `_manifest.json`: written last into a run folder, its presence marks the resource-run
 * complete. Everything the loader needs travels here, so the loader never asks the source
 * declarations (a run stays loadable after the declaration changed).
 */
export const manifestSchema = z
  .object({
    version: z.literal(1),
    source: z.string().min(1),
    resource: z.string().min(1),
    runId: z.string().regex(RUN_ID_PATTERN),
    startedAt: isoTimestamp,
    finishedAt: isoTimestamp,
    /** Stamped on every row as `_extracted_at`. */
    extractedAt: isoTimestamp,
    /** Key columns; the loader keeps one row per key (NULL parts compare equal). */
    primaryKey: z.array(z.string().min(1)).min(1),
    /** The record's own last-modified field (e.g. `last_update`); the newest value wins a merge. */
    cursorField: z.string().min(1).optional(),
    /** True when the run saw the full set, so a key missing from it has vanished upstream. */
    snapshot: z.boolean(),
    /**
     * A snapshot written as a difference: `files` hold only the records new or changed
     * against the warehouse, and this file the key of every record the snapshot saw (what the
     * load takes as seen, and whose absence marks a record vanished).
     */
    keys: rawFileSchema.optional(),
    /** With `keys`: the warehouse state the difference was cut against (absent in manifests of an earlier fanlake). */
    base: differenceBaseSchema.optional(),
    /**
     * Keys of records a read by key found gone at the source (a 404 in the API's error shape),
     * each as primary-key column → value as text: the load flags those rows vanished as of
     * this run, as a snapshot that lacked them would.
     */
    removed: z.array(z.record(z.string(), z.string())).optional(),
    /** Column name → DuckDB type of the Parquet files: declared columns, then undeclared ones as JSON. */
    columns: z.record(z.string(), z.string()),
    files: z.array(rawFileSchema),
    rows: z.number().int().nonnegative(),
    quarantined: z.number().int().nonnegative(),
    windows: z.array(z.unknown()).optional(),
    highWaterMark: z.string().optional(),
  })
  .refine((manifest) => manifest.rows === manifest.files.reduce((sum, file) => sum + file.rows, 0), {
    message: 'rows must equal the sum of the files rows',
    path: ['rows'],
  });

export type Manifest = z.infer<typeof manifestSchema>;

/** Validates and writes a run's manifest atomically (tmp + fsync + rename); call it after every other file of the run. */
export async function writeManifest(dataDir: string, manifest: Manifest): Promise<string> {
  const checked = parseJson(manifest, manifestSchema, CODE.E_MANIFEST_INVALID, 'manifest to write', 'manifest to write');
  const path = manifestPath(dataDir, checked);
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, `${JSON.stringify(checked, null, 2)}\n`);
  return path;
}

/**
 * Reads and validates a manifest.
 *
 * @throws FanlakeError `E_MANIFEST_INVALID` naming the file when it is not JSON or not a version-1 manifest.
 */
export function readManifest(path: string): Promise<Manifest> {
  return readJsonFile(path, manifestSchema, CODE.E_MANIFEST_INVALID, 'manifest');
}

/**
 * Reads the manifest of one resource-run from its place in the raw layout.
 *
 * @throws FanlakeError `E_MANIFEST_INVALID` also when the manifest names another run than its folder.
 */
export async function readRunManifest(dataDir: string, run: RawRunRef): Promise<Manifest> {
  const path = manifestPath(dataDir, run);
  const manifest = await readManifest(path);
  if (manifest.source !== run.source || manifest.resource !== run.resource || manifest.runId !== run.runId) {
    const named = `${manifest.source}/${manifest.resource}/${manifest.runId}`;
    throw new FanlakeError(CODE.E_MANIFEST_INVALID, `manifest ${path} names run ${named}`, { context: { path } });
  }
  return manifest;
}
