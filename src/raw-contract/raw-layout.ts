import { TMP_SUFFIX } from '../core/atomic-file.js';
import { randomBytes } from 'node:crypto';
import { join, relative, sep } from 'node:path';
import { FanlakeError } from '../core/errors.js';
import { CODE } from '../core/error-codes.js';

/**
 * Where raw files live. The extractor writes and the loader reads through these functions
 * only, so the layout is stated once:
 *
 * ```
 * $DATA/raw/<source>/<resource>/run=<runId>/part-00000.parquet
 * $DATA/raw/<source>/<resource>/run=<runId>/quarantine.ndjson   (only when something was quarantined)
 * $DATA/raw/<source>/<resource>/run=<runId>/_manifest.json      (written last: the run is complete)
 * ```
 */

/** One resource's output of one extraction run. */
export interface RawRunRef {
  source: string;
  resource: string;
  runId: string;
}

export const RAW_DIR = 'raw';
/** The warehouse schema of the raw tables, one per resource (docs/interface.md, "Raw tables"). */
export const RAW_SCHEMA = 'raw';
export const RUN_DIR_PREFIX = 'run=';
export const MANIFEST_FILE = '_manifest.json';
export const QUARANTINE_FILE = 'quarantine.ndjson';
/** Suffix of every file still being written; a reader ignores them and a later run may delete them. */
export { TMP_SUFFIX };

/** `YYYYMMDDTHHMMSSZ-<6 hex>`: sorts by start time, the suffix separates runs started in the same second. */
export const RUN_ID_PATTERN = /^\d{8}T\d{6}Z-[0-9a-f]{6}$/;

// Source and resource names become folder names and part of a table name (`raw.<source>_<resource>`).
const NAME_PATTERN = /^[a-z][a-z0-9_]*$/;

/** A new run id for a run starting at `now`. */
export function newRunId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

export function isRunId(value: string): boolean {
  return RUN_ID_PATTERN.test(value);
}

/** `$DATA/raw`. */
export function rawRoot(dataDir: string): string {
  return join(dataDir, RAW_DIR);
}

/** `$DATA/raw/<source>/<resource>`: the parent of every run folder of a resource. */
export function resourceDir(dataDir: string, source: string, resource: string): string {
  assertName('source', source);
  assertName('resource', resource);
  return join(rawRoot(dataDir), source, resource);
}

/** `$DATA/raw/<source>/<resource>/run=<runId>`. */
export function runDir(dataDir: string, run: RawRunRef): string {
  assertRunId(run.runId);
  return join(resourceDir(dataDir, run.source, run.resource), runDirName(run.runId));
}

export function runDirName(runId: string): string {
  return `${RUN_DIR_PREFIX}${runId}`;
}

/** The run id in a folder name `run=<runId>`, or undefined for any other name. */
export function parseRunDirName(name: string): string | undefined {
  if (!name.startsWith(RUN_DIR_PREFIX)) return undefined;
  const runId = name.slice(RUN_DIR_PREFIX.length);
  return isRunId(runId) ? runId : undefined;
}

/** `part-00000.parquet` for index 0; zero-padded so names sort in write order. */
export function partFileName(index: number): string {
  return `part-${String(index).padStart(5, '0')}.parquet`;
}

/** `part-00000.json.tmp`: the spool (JSON lines, one record a line) that becomes part 0. */
export function spoolFileName(index: number): string {
  return `${partFileName(index).replace(/\.parquet$/, '.json')}${TMP_SUFFIX}`;
}

export function manifestPath(dataDir: string, run: RawRunRef): string {
  return join(runDir(dataDir, run), MANIFEST_FILE);
}

export function quarantinePath(dataDir: string, run: RawRunRef): string {
  return join(runDir(dataDir, run), QUARANTINE_FILE);
}

/** The warehouse table of a resource, unquoted: `raw.ticketing_tickets` is `{ schema: 'raw', table: 'ticketing_tickets' }`. */
export function rawTableName(source: string, resource: string): { schema: string; table: string } {
  assertName('source', source);
  assertName('resource', resource);
  return { schema: RAW_SCHEMA, table: `${source}_${resource}` };
}

/**
 * A file path as manifests store it: relative to the data dir with `/` separators, so a data
 * dir can move or be copied without rewriting its manifests.
 */
export function toDataRelative(dataDir: string, absolutePath: string): string {
  return relative(dataDir, absolutePath).split(sep).join('/');
}

/** The absolute path of a manifest's file path; refuses paths that climb out of the data dir. */
export function fromDataRelative(dataDir: string, relativePath: string): string {
  const parts = relativePath.split('/');
  if (relativePath.startsWith('/') || parts.includes('..')) {
    throw new FanlakeError(CODE.E_RAW_PATH, `file path ${relativePath} leaves the data dir`, { context: { path: relativePath } });
  }
  return join(dataDir, ...parts);
}

function assertName(kind: 'source' | 'resource', value: string): void {
  if (!NAME_PATTERN.test(value)) {
    throw new FanlakeError(CODE.E_RAW_NAME, `${kind} name ${JSON.stringify(value)} must match ${NAME_PATTERN}`, {
      context: { [kind]: value },
    });
  }
}

function assertRunId(runId: string): void {
  if (!isRunId(runId)) {
    throw new FanlakeError(CODE.E_RAW_RUN_ID, `run id ${JSON.stringify(runId)} must match ${RUN_ID_PATTERN}`, {
      context: { runId },
    });
  }
}
