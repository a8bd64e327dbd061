import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as z from 'zod';
import { writeFileAtomic } from '../core/atomic-file.js';
import { sourceStatePath } from '../raw-contract/index.js';

const schema = z.object({
  version: z.literal(1),
  /** Endpoint name → the start of the run that last read it in full, completely. */
  endpoints: z.record(z.string(), z.object({ startedAt: z.iso.datetime(), runId: z.string() })),
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

  /** Records complete full reads of `endpoints` by the run that started at `startedAt`. */
  async record(endpoints: readonly string[], runId: string, startedAt: Date): Promise<void> {
    if (endpoints.length === 0) return;
    for (const endpoint of endpoints) this.data.endpoints[endpoint] = { startedAt: startedAt.toISOString(), runId };
    await mkdir(dirname(this.path), { recursive: true });
    await writeFileAtomic(this.path, `${JSON.stringify(this.data, null, 2)}\n`);
  }
}
