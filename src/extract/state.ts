import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as z from 'zod';
import { FanlakeError } from '../core/errors.js';
import { writeFileAtomic } from '../core/atomic-file.js';
import { SerialQueue } from '../core/serial-queue.js';
import { sourceStatePath } from '../raw-contract/index.js';
import { CODE } from '../core/error-codes.js';

const ResourceStateSchema = z.object({
  /** Every unchanged record with a cursor up to here is in raw files that are durable. */
  completeThrough: z.iso.datetime(),
  /** The newest cursor value seen, for `status`. */
  highWaterMark: z.string().optional(),
  lastRunId: z.string(),
  updatedAt: z.iso.datetime(),
});

const SourceStateSchema = z.object({
  version: z.literal(1),
  resources: z.record(z.string(), ResourceStateSchema),
});

export type ResourceState = z.infer<typeof ResourceStateSchema>;

/**
 * `$DATA/state/<source>.json`: where incremental runs resume. It advances only after the
 * files it covers are durable and their manifest is written, so a kill at any moment
 * leaves state pointing at data that exists; a re-run reads the gap again.
 */
export class SourceState {
  private constructor(
    private readonly path: string,
    private readonly data: z.infer<typeof SourceStateSchema>,
    private readonly writes = new SerialQueue(),
  ) {}

  static async open(dataDir: string, source: string): Promise<SourceState> {
    const path = sourceStatePath(dataDir, source);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch {
      return new SourceState(path, { version: 1, resources: {} });
    }
    const parsed = SourceStateSchema.safeParse(safeJson(text));
    if (!parsed.success) {
      throw new FanlakeError(CODE.E_STATE_INVALID, `state file ${path} is damaged; move it away to re-extract ${source} from the start date`);
    }
    return new SourceState(path, parsed.data);
  }

  /** Every resource with a stored position, by name. */
  entries(): [string, ResourceState][] {
    return Object.entries(this.data.resources);
  }

  get(resource: string): ResourceState | undefined {
    return this.data.resources[resource];
  }

  /** Records a resource's new position; writes are serialised and atomic. */
  async advance(resource: string, state: ResourceState): Promise<void> {
    this.data.resources[resource] = state;
    const snapshot = `${JSON.stringify(this.data, null, 2)}\n`;
    await this.writes.run(async () => {
      await mkdir(dirname(this.path), { recursive: true });
      await writeFileAtomic(this.path, snapshot);
    });
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
