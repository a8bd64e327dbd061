import { mkdir, open, rm } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { commitFile } from '../../core/atomic-file.js';
import { TMP_SUFFIX } from '../../raw-contract/index.js';

/**
 * Items that failed validation, one `{"reason": ..., "item": ...}` line each. Lines are
 * appended to `<path>.tmp` as they come (memory stays flat) and the file gets its final name
 * at `finish()`, like the Parquet parts: a final name always means a complete run, and no
 * fsync is paid per bad item. Nothing is created when nothing was quarantined.
 */
export class QuarantineWriter {
  #handle: FileHandle | undefined;
  #count = 0;

  constructor(readonly path: string) {}

  get count(): number {
    return this.#count;
  }

  async append(item: unknown, reason: string): Promise<void> {
    if (this.#handle === undefined) {
      await mkdir(dirname(this.path), { recursive: true });
      this.#handle = await open(this.tmpPath, 'w');
    }
    await this.#handle.write(`${JSON.stringify({ reason, item })}\n`);
    this.#count += 1;
  }

  /** Gives the file its final name; returns its path, or undefined when nothing was quarantined. */
  async finish(): Promise<string | undefined> {
    if (this.#handle === undefined) return undefined;
    await this.#handle.close();
    this.#handle = undefined;
    await commitFile(this.tmpPath, this.path);
    return this.path;
  }

  /** Drops what was written. */
  async abort(): Promise<void> {
    await this.#handle?.close();
    this.#handle = undefined;
    await rm(this.tmpPath, { force: true });
  }

  private get tmpPath(): string {
    return `${this.path}${TMP_SUFFIX}`;
  }
}
