import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
/** Suffix of a file still being written. */
export const TMP_SUFFIX = '.tmp';

/**
 * Files appear under their final name only when complete and on disk: written as `<name>.tmp`,
 * fsynced, renamed, and the folder fsynced so the rename itself survives a power cut.
 */

/** Flushes a file's data to disk. */
export async function fsyncFile(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Flushes a folder's entries (new names, renames) to disk; a no-op where folders cannot be opened. */
export async function fsyncDir(path: string): Promise<void> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return;
  }
  try {
    await handle.sync();
  } catch {
    // Some platforms refuse fsync on a folder; the rename is then as durable as they allow.
  } finally {
    await handle.close();
  }
}

/** Fsyncs `from`, renames it to `to` and fsyncs the folder. */
export async function commitFile(from: string, to: string): Promise<void> {
  await fsyncFile(from);
  await rename(from, to);
  await fsyncDir(dirname(to));
}

/** Writes `data` to `path` atomically: readers see the old file, or none, or all of the new one. */
export async function writeFileAtomic(path: string, data: string): Promise<void> {
  const tmp = `${path}${TMP_SUFFIX}`;
  await writeFile(tmp, data, 'utf8');
  await commitFile(tmp, path);
}

/** Lowercase hex sha256 of a file, read as a stream. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
