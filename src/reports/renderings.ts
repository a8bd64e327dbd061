import { cp, lstat, readdir, readFile, rename, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { writeFileAtomic } from '../core/atomic-file.js';

/** `<out>/<name>/latest`: the newest rendering (a symlink, or a copy where links are not possible). */
export const LATEST = 'latest';
/** Written into each rendering: what the index page and the next digest read. */
export const RENDERING_FILE = 'rendering.json';

/** `20261123T150000.123Z`: a UTC timestamp that sorts like time and is a valid folder name everywhere. */
const FOLDER = /^\d{8}T\d{6}\.\d{3}Z$/;

export function renderingFolderName(at: Date): string {
  return at.toISOString().replace(/[-:]/g, '');
}

export const renderingRecordSchema = z.object({
  version: z.literal(1),
  name: z.string(),
  title: z.string(),
  renderedAt: z.string(),
  params: z.record(z.string(), z.string().nullable()),
  personalData: z.boolean(),
  figures: z.array(z.object({ label: z.string(), value: z.union([z.string(), z.number(), z.boolean(), z.null()]), format: z.string() })),
  sources: z.array(z.object({ source: z.string(), newestExtractedAt: z.string().nullable(), runId: z.string().nullable() })),
});

/** `rendering.json`: a rendering described for the index page and the next rendering's digest. */
export type RenderingRecord = z.infer<typeof renderingRecordSchema>;

/** Folder names of a report's renderings, oldest first. */
export async function listRenderings(reportDir: string): Promise<string[]> {
  const entries = await readdir(reportDir, { withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isDirectory() && FOLDER.test(entry.name)).map((entry) => entry.name).sort();
}

export async function readRenderingRecord(renderingDir: string): Promise<RenderingRecord | undefined> {
  try {
    const parsed = renderingRecordSchema.safeParse(JSON.parse(await readFile(join(renderingDir, RENDERING_FILE), 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Makes a symbolic link; some file systems refuse (FAT on a USB stick, SMB shares, Windows without the privilege). */
export type MakeLink = (target: string, path: string, type: 'dir') => Promise<void>;

/**
 * Gives a finished rendering its timestamp name, points `latest` at it and removes the oldest
 * renderings beyond `keep`. The folder is renamed into place complete, so a reader never sees
 * half a rendering under a timestamp name.
 */
export async function publishRendering(reportDir: string, stagingDir: string, folder: string, keep: number, makeLink: MakeLink = symlink): Promise<string> {
  const final = join(reportDir, folder);
  await rename(stagingDir, final);
  await pointLatest(reportDir, folder, makeLink);
  const all = await listRenderings(reportDir);
  for (const old of all.slice(0, Math.max(0, all.length - keep))) await rm(join(reportDir, old), { recursive: true, force: true });
  return final;
}

async function pointLatest(reportDir: string, folder: string, makeLink: MakeLink): Promise<void> {
  const latest = join(reportDir, LATEST);
  const next = join(reportDir, `.${LATEST}.next`);
  await rm(next, { recursive: true, force: true });
  let copied = false;
  try {
    await makeLink(folder, next, 'dir');
  } catch {
    await cp(join(reportDir, folder), next, { recursive: true });
    copied = true;
  }
  // rename() replaces a symlink by a symlink atomically; a directory copy on either side (the
  // data dir moved to a file system that refuses links, or back) must be removed first.
  const current = await lstat(latest).catch(() => undefined);
  if (current && (current.isDirectory() || copied)) await rm(latest, { recursive: true, force: true });
  await rename(next, latest);
}

export async function writeRenderingRecord(renderingDir: string, record: RenderingRecord): Promise<void> {
  await writeFileAtomic(join(renderingDir, RENDERING_FILE), `${JSON.stringify(record, null, 2)}\n`);
}
