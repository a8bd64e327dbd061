import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Bytes of the files under `path` (a file's own size when it is one; 0 when it is missing),
 * and of those among them whose name `counts` accepts, in one walk.
 */
export async function folderBytes(path: string, counts: (fileName: string) => boolean = () => true): Promise<{ total: number; counted: number }> {
  let entries;
  try {
    entries = await readdir(path, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOTDIR') return { total: 0, counted: 0 };
    const size = (await stat(path).catch(() => ({ size: 0 }))).size;
    return { total: size, counted: size };
  }
  let total = 0;
  let counted = 0;
  for (const entry of entries) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) {
      const inner = await folderBytes(child, counts);
      total += inner.total;
      counted += inner.counted;
    } else {
      const size = (await stat(child).catch(() => ({ size: 0 }))).size;
      total += size;
      if (counts(entry.name)) counted += size;
    }
  }
  return { total, counted };
}
