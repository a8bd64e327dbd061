import { mkdir, open, readdir, readFile, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { fsyncDir, writeFileAtomic } from '../core/atomic-file.js';
import { CODE } from '../core/error-codes.js';
import { FanlakeError } from '../core/errors.js';

/**
 * The change journal: every CustomerProfile change `fanlake listen` acknowledged, one JSON
 * line each, appended and fsynced before the platform gets its 200, so a change it was
 * told we have survives any crash. Extraction reads what was appended since the last
 * consumed position; load marks a position consumed once the re-read records are in the
 * warehouse.
 *
 * ```
 * $DATA/listen/journal/<segment>.ndjson   one segment per receiver start (named by its start time), append-only
 * $DATA/listen/consumed.json              the position up to which changes are in the warehouse
 * $DATA/listen/receiver.json              the receiver's state (see receiver-state.ts)
 * ```
 *
 * A receiver killed mid-write leaves at most one line without its newline at the end of its
 * segment: that change was never acknowledged, so readers ignore it, and the next receiver
 * writes a segment of its own.
 */

export const LISTEN_DIR = 'listen';

/** A segment's name: its start time to the millisecond, `YYYYMMDDTHHMMSSmmmZ`, later than every earlier segment's. */
const SEGMENT_PATTERN = /^\d{8}T\d{9}Z$/;

/** A place in the journal: a segment and a byte offset in it (the end of a complete line). */
export const journalPositionSchema = z.object({
  segment: z.string().regex(SEGMENT_PATTERN),
  offset: z.number().int().nonnegative(),
});
export type JournalPosition = z.infer<typeof journalPositionSchema>;

/** One acknowledged delivery: the profiles it named, or that it named none we could read. */
export interface JournalEntry {
  readonly at: string;
  readonly ids?: readonly string[];
  /** A delivery whose payload named no profile we could find: the next run takes a full snapshot. */
  readonly unparsed?: true;
}

/** What the journal holds after a position. */
export interface ChangesSince {
  /** Profile ids named, each once, in first-seen order. */
  readonly ids: string[];
  /** Deliveries whose payload named no profile. */
  readonly unparsed: number;
  readonly entries: number;
  /** The end of the last complete line read; the given position when nothing followed it. */
  readonly through: JournalPosition | undefined;
}

export function listenDir(dataDir: string): string {
  return join(dataDir, LISTEN_DIR);
}

export function journalDir(dataDir: string): string {
  return join(listenDir(dataDir), 'journal');
}

function segmentPath(dataDir: string, segment: string): string {
  return join(journalDir(dataDir), `${segment}.ndjson`);
}

function consumedPath(dataDir: string): string {
  return join(listenDir(dataDir), 'consumed.json');
}

/** Orders positions: negative when `a` is before `b`. An absent position is before every other. */
export function comparePositions(a: JournalPosition | undefined, b: JournalPosition | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? -1 : 1;
  if (a.segment !== b.segment) return a.segment < b.segment ? -1 : 1;
  return a.offset - b.offset;
}

/**
 * Appends entries to a segment of its own. Appends that arrive while a write is syncing go
 * together in the next write and sync (a group commit), so a burst of deliveries costs one
 * fsync per batch, not one per delivery; each `append` resolves once its line is on disk.
 */
export class JournalWriter {
  private queue: { line: string; done: () => void; failed: (error: unknown) => void }[] = [];
  private flushing = false;
  private closed = false;

  private constructor(
    private readonly handle: FileHandle,
    readonly segment: string,
  ) {}

  static async open(dataDir: string): Promise<JournalWriter> {
    await mkdir(journalDir(dataDir), { recursive: true });
    const segment = nextSegmentName(new Date(), (await segments(dataDir)).at(-1));
    const handle = await open(segmentPath(dataDir, segment), 'ax');
    // The new name must survive a power cut as well as the lines written into it.
    await fsyncDir(journalDir(dataDir));
    return new JournalWriter(handle, segment);
  }

  append(entry: JournalEntry): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the change journal is closed'));
    return new Promise((done, failed) => {
      this.queue.push({ line: `${JSON.stringify(entry)}\n`, done, failed });
      if (!this.flushing) void this.flush();
    });
  }

  /** Waits for what is queued, then closes the segment. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.flushing || this.queue.length > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await this.handle.close();
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      try {
        await this.handle.appendFile(batch.map((item) => item.line).join(''));
        await this.handle.datasync();
        for (const item of batch) item.done();
      } catch (error) {
        for (const item of batch) item.failed(error);
      }
    }
    this.flushing = false;
  }
}

/** Segment names in the journal, oldest first. */
async function segments(dataDir: string): Promise<string[]> {
  const names = await readdir(journalDir(dataDir)).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  return names.filter((name) => name.endsWith('.ndjson')).map((name) => name.slice(0, -'.ndjson'.length)).filter((name) => SEGMENT_PATTERN.test(name)).sort();
}

/**
 * The changes appended after `from` (the whole journal without it), up to the last complete
 * line of each segment as it is now. A receiver may be appending meanwhile: what it adds
 * later is read by the next run.
 */
export async function readChangesSince(dataDir: string, from: JournalPosition | undefined): Promise<ChangesSince> {
  const ids = new Set<string>();
  let unparsed = 0;
  let entries = 0;
  let through = from;
  for (const segment of await segments(dataDir)) {
    if (from && segment < from.segment) continue;
    const start = from && segment === from.segment ? from.offset : 0;
    const bytes = await readFile(segmentPath(dataDir, segment));
    const end = bytes.lastIndexOf(0x0a) + 1;
    if (end > start) {
      for (const line of bytes.subarray(start, end).toString('utf8').split('\n')) {
        if (line === '') continue;
        const entry = parseEntry(line, segment);
        entries++;
        if (entry.unparsed) unparsed++;
        for (const id of entry.ids ?? []) ids.add(id);
      }
    }
    if (end >= start) through = { segment, offset: Math.max(end, start) };
  }
  return { ids: [...ids], unparsed, entries, through };
}

/** The end of the journal as it is now (the last complete line), undefined for an empty journal. */
export async function journalEnd(dataDir: string): Promise<JournalPosition | undefined> {
  const all = await segments(dataDir);
  const last = all.at(-1);
  if (last === undefined) return undefined;
  const bytes = await readFile(segmentPath(dataDir, last));
  return { segment: last, offset: bytes.lastIndexOf(0x0a) + 1 };
}

const consumedSchema = z.object({ version: z.literal(1), position: journalPositionSchema, at: z.iso.datetime() });

/** Up to where changes are in the warehouse; undefined when nothing was consumed yet. */
export async function readConsumed(dataDir: string): Promise<JournalPosition | undefined> {
  let text: string;
  try {
    text = await readFile(consumedPath(dataDir), 'utf8');
  } catch {
    return undefined;
  }
  const parsed = consumedSchema.safeParse(safeJson(text));
  if (!parsed.success) {
    throw new FanlakeError(CODE.E_JOURNAL_INVALID, `${consumedPath(dataDir)} is damaged; move it away and the next run re-reads every recorded change`);
  }
  return parsed.data.position;
}

/**
 * Marks changes up to `position` consumed (it only moves forward), then removes segments
 * wholly before it, except the receiver's own (it may still append there).
 */
export async function markConsumed(dataDir: string, position: JournalPosition, keepSegment?: string): Promise<void> {
  const current = await readConsumed(dataDir).catch(() => undefined);
  if (comparePositions(position, current) <= 0) return;
  await mkdir(listenDir(dataDir), { recursive: true });
  await writeFileAtomic(consumedPath(dataDir), `${JSON.stringify({ version: 1, position, at: new Date().toISOString() })}\n`);
  for (const segment of await segments(dataDir)) {
    if (segment >= position.segment || segment === keepSegment) continue;
    await unlink(segmentPath(dataDir, segment)).catch(() => undefined);
  }
}

/** Bytes the journal holds, for `status`. */
export async function journalBytes(dataDir: string): Promise<number> {
  let total = 0;
  for (const segment of await segments(dataDir)) total += (await stat(segmentPath(dataDir, segment)).catch(() => ({ size: 0 }))).size;
  return total;
}

/** The name of a segment started at `now`: after `newest` even when the clock says otherwise. */
function nextSegmentName(now: Date, newest: string | undefined): string {
  const stamp = (date: Date) => date.toISOString().replace(/[-:.]/g, '');
  let name = stamp(now);
  if (newest !== undefined && name <= newest) {
    const at = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z$/.exec(newest)!.slice(1).map(Number);
    name = stamp(new Date(Date.UTC(at[0]!, at[1]! - 1, at[2]!, at[3]!, at[4]!, at[5]!, at[6]! + 1)));
  }
  return name;
}

function parseEntry(line: string, segment: string): JournalEntry {
  const value = safeJson(line) as JournalEntry | undefined;
  if (value === undefined || typeof value !== 'object' || value === null || (value.ids !== undefined && !Array.isArray(value.ids))) {
    throw new FanlakeError(CODE.E_JOURNAL_INVALID, `change journal segment ${segment} holds a line that is not a change`);
  }
  return value;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
