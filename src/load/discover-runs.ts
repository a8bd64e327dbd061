import { access, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { manifestPath, parseRunDirName, rawRoot } from '../raw-contract/index.js';
import type { RawRunRef } from '../raw-contract/index.js';

/** A run folder holding a `_manifest.json`, i.e. a complete resource-run; read it with `readRunManifest`. */
export type CompletedRun = RawRunRef;

/**
 * Lists complete resource-runs under `$DATA/raw`, sorted by source, resource and run id
 * (oldest first). Only folder names are read: manifests are opened later, and only for runs
 * not loaded yet, so discovery stays cheap as history grows. Folders without a manifest are
 * runs still being written or abandoned, and are ignored.
 */
export async function discoverRuns(dataDir: string): Promise<CompletedRun[]> {
  const runs: CompletedRun[] = [];
  for (const source of await subfolders(rawRoot(dataDir))) {
    for (const resource of await subfolders(join(rawRoot(dataDir), source))) {
      for (const folder of await subfolders(join(rawRoot(dataDir), source, resource))) {
        const runId = parseRunDirName(folder);
        if (runId === undefined) continue;
        const run = { source, resource, runId };
        let path: string;
        try {
          path = manifestPath(dataDir, run);
        } catch {
          continue; // a folder name that is not a valid source or resource name is not ours
        }
        if (await exists(path)) runs.push(run);
      }
    }
  }
  const order = (run: CompletedRun) => `${run.source}\u0000${run.resource}\u0000${run.runId}`;
  return runs.sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
}

async function subfolders(path: string): Promise<string[]> {
  try {
    const entries = await readdir(path, { withFileTypes: true });
    return entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
