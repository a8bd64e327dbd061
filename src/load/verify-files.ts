import { stat } from 'node:fs/promises';
import { FanlakeError } from '../core/errors.js';
import { sha256File } from '../core/atomic-file.js';
import { fromDataRelative } from '../raw-contract/index.js';
import type { Manifest } from '../raw-contract/index.js';
import { CODE } from '../core/error-codes.js';

/**
 * Checks every file of a run against its manifest (size, then sha256) and returns the
 * absolute paths of its record files. A file changed after extraction would load wrong data silently; this
 * turns it into an error naming the file.
 *
 * @throws FanlakeError `E_LOAD_FILE_MISSING` or `E_LOAD_CHECKSUM`, not retryable.
 */
export async function verifyRunFiles(dataDir: string, manifest: Manifest): Promise<string[]> {
  const paths: string[] = [];
  // A snapshot written as a difference also carries its keys, checked alike (not merged as rows).
  for (const file of [...manifest.files, ...(manifest.keys ? [manifest.keys] : [])]) {
    const path = fromDataRelative(dataDir, file.path);
    const context = { source: manifest.source, resource: manifest.resource, runId: manifest.runId, path: file.path };
    let bytes: number;
    try {
      bytes = (await stat(path)).size;
    } catch (cause) {
      throw new FanlakeError(CODE.E_LOAD_FILE_MISSING, `raw file ${file.path} is missing`, { context, cause });
    }
    // Same size is cheap to check first; only the hash proves the content.
    if (bytes !== file.bytes || (await sha256File(path)) !== file.sha256) {
      throw new FanlakeError(CODE.E_LOAD_CHECKSUM, `raw file ${file.path} does not match the size and sha256 in its manifest`, { context });
    }
    if (file !== manifest.keys) paths.push(path);
  }
  return paths;
}
