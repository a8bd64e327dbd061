import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as z from 'zod';
import { writeFileAtomic } from '../core/atomic-file.js';
import { sourceStatePath } from '../raw-contract/index.js';

const schema = z.object({
  version: z.literal(1),
  /** Endpoint name → the start of the run that last read it in full, completely. */
  endpoints: z.record(z.string(), z.object({ startedAt: z.iso.datetime(), runId: z.string() })),
  /**
   * Table → why it is read in full and written whole by the next run: the load skipped a
   * difference of it taken against another warehouse state (load/difference-bases.ts).
   */
  whole: z.record(z.string(), z.string()).optional(),
});

/**
 * `$DATA/state/<source>-snapshots.json`: when each endpoint of a snapshot source was last
 * read whole and complete. With a push subscription, runs between full snapshots read only
 * what changed; this says when the next full one is due and since when the receiver must
 * have covered every change. An unreadable file counts as no snapshot yet (the next run
 * takes one), never as an error.
 */
export class SnapshotState {
  private constructor(
    private readonly path: string,
    private readonly data: z.infer<typeof schema>,
  ) {}

  static async open(dataDir: string, source: string): Promise<SnapshotState> {
    const path = sourceStatePath(dataDir, `${source}-snapshots`);
    let data: z.infer<typeof schema> = { version: 1, endpoints: {} };
    try {
      const parsed = schema.safeParse(JSON.parse(await readFile(path, 'utf8')));
      if (parsed.success) data = parsed.data;
    } catch {
      // No file yet, or a damaged one: no snapshot is known.
    }
    return new SnapshotState(path, data);
  }

  /** When `endpoint` was last read in full, undefined when never. */
  lastFull(endpoint: string): Date | undefined {
    const entry = this.data.endpoints[endpoint];
    return entry ? new Date(entry.startedAt) : undefined;
  }

  /** Why `table` must be read in full and written whole, when a load asked for it. */
  wholeNeeded(table: string): string | undefined {
    return this.data.whole?.[table];
  }

  /** Every table a load asked to be written whole. */
  wholeTables(): ReadonlySet<string> {
    return new Set(Object.keys(this.data.whole ?? {}));
  }

  /** Asks the next run to read each table in full and write it whole (a difference of it could not be applied). */
  async markWhole(tables: ReadonlyMap<string, string>): Promise<void> {
    if (tables.size === 0) return;
    this.data.whole = { ...this.data.whole, ...Object.fromEntries(tables) };
    await this.save();
  }

  /**
   * Records complete full reads of `endpoints` by the run that started at `startedAt`, and
   * forgets the marks of `wholeWritten`, tables this run wrote whole as complete snapshots.
   */
  async record(endpoints: readonly string[], runId: string, startedAt: Date, wholeWritten: readonly string[] = []): Promise<void> {
    const cleared = wholeWritten.filter((table) => this.data.whole?.[table] !== undefined);
    if (endpoints.length === 0 && cleared.length === 0) return;
    for (const endpoint of endpoints) this.data.endpoints[endpoint] = { startedAt: startedAt.toISOString(), runId };
    for (const table of cleared) delete this.data.whole![table];
    await this.save();
  }

  private async save(): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
    await writeFileAtomic(this.path, `${JSON.stringify(this.data, null, 2)}\n`);
  }
}
