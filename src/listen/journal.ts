import { mkdir, readdir, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { writeFileAtomic } from '../core/atomic-file.js';

/**
 * The change journal: every CustomerProfile change `fanlake listen` acknowledged, one JSON
 * line each, appended and fsynced before the platform gets its 200, so a change it was
 * told we have survives any crash. Extraction reads what was appended since the last
 * consumed position; load marks a position consumed once the re-read records are in the
 * warehouse. The writer is in journal-writer.ts.
 *
 * ```
 * $DATA/listen/journal/<segment>.ndjson   append-only segments, named by their start time; a new one per receiver start and at a size limit
 * $DATA/listen/consumed.json              the position up to which changes are in the warehouse
 * $DATA/listen/receiver.json              the receiver's state (see receiver-state.ts)
 * ```
 *
 * A receiver killed mid-write leaves at most one line without its newline at the end of its
 * segment: that change was never acknowledged, so readers ignore it, and the next receiver
 * writes a segment of its own. Any other line that is not an entry (damaged by a disk, or
 * written by hand) is skipped and counted: what it named is unknown, so runs answer it with a
 * full snapshot, and nothing in the journal can stop a run or `status`.
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

/** One line of the journal: an acknowledged delivery, or the writer's word that it dropped segments. */
export const journalEntrySchema = z.object({
  /** When the receiver took it. */
  at: z.iso.datetime(),
  /** The profiles a delivery named. */
  ids: z.array(z.string()).optional(),
  /** A delivery whose payload named no profile we could find: the next run takes a full snapshot. */
  unparsed: z.literal(true).optional(),
  /** Unconsumed segments the writer removed to keep the journal within its bound: the next run takes a full snapshot. */
  dropped: z.object({ segments: z.number().int().positive(), bytes: z.number().int().nonnegative() }).optional(),
}).refine((entry) => entry.ids !== undefined || entry.unparsed !== undefined || entry.dropped !== undefined, 'names no change');
/** One line of the journal, as the writer appends it. */
export interface JournalEntry {
  readonly at: string;
  readonly ids?: readonly string[];
  readonly unparsed?: true;
  readonly dropped?: { readonly segments: number; readonly bytes: number };
}

/** How a journal is read. */
export interface ReadOptions {
  /**
   * Only entries that arrived at or before this are taken; reading stops at the first younger
   * one, which is left (with everything after it) for a later read. Absent: every entry.
   */
  readonly settledBefore?: Date;
}

/** What the journal holds after a position. */
export interface ChangesSince {
  /** Profile ids named, each once, in first-seen order. */
  readonly ids: string[];
  /** Deliveries whose payload named no profile. */
  readonly unparsed: number;
  /** Lines that are no entry (partial bytes of a failed append, garbage): skipped, what they named unknown. */
  readonly unreadable: number;
  /** Times the writer dropped unconsumed segments to stay within its bound. */
  readonly dropped: readonly { readonly at: string; readonly segments: number; readonly bytes: number }[];
  /** Entries taken. */
  readonly entries: number;
  /** Lines left for a later read: they arrived after `settledBefore` (or follow one that did). */
  readonly waiting: number;
  /** The end of the last line taken; the given position when nothing followed it. */
  readonly through: JournalPosition | undefined;
}

export function listenDir(dataDir: string): string {
  return join(dataDir, LISTEN_DIR);
}

export function journalDir(dataDir: string): string {
  return join(listenDir(dataDir), 'journal');
}

export function segmentPath(dataDir: string, segment: string): string {
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

/** Segment names in the journal, oldest first. */
export async function segments(dataDir: string): Promise<string[]> {
  const names = await readdir(journalDir(dataDir)).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  return names.filter((name) => name.endsWith('.ndjson')).map((name) => name.slice(0, -'.ndjson'.length)).filter((name) => SEGMENT_PATTERN.test(name)).sort();
}

/** Each segment with its size in bytes, oldest first (one removed meanwhile is left out). */
export async function segmentSizes(dataDir: string): Promise<{ segment: string; bytes: number }[]> {
  const sizes: { segment: string; bytes: number }[] = [];
  for (const segment of await segments(dataDir)) {
    const info = await stat(segmentPath(dataDir, segment)).catch(() => undefined);
    if (info) sizes.push({ segment, bytes: info.size });
  }
  return sizes;
}

/**
 * The changes appended after `from` (the whole journal without it), up to the last complete
 * line of each segment as it is now, and with `settledBefore` only those settled by then. A
 * receiver may be appending meanwhile: what it adds later is read by the next run. A segment
 * removed meanwhile (consumed, or dropped by the writer, which says so in a later segment
 * first) is passed over.
 */
export async function readChangesSince(dataDir: string, from: JournalPosition | undefined, options: ReadOptions = {}): Promise<ChangesSince> {
  const settled = options.settledBefore?.getTime() ?? Number.POSITIVE_INFINITY;
  const ids = new Set<string>();
  const dropped: ChangesSince['dropped'][number][] = [];
  let unparsed = 0;
  let unreadable = 0;
  let entries = 0;
  let waiting = 0;
  let through = from;
  let stopped = false;
  for (const segment of await segments(dataDir)) {
    if (from && segment < from.segment) continue;
    const start = from && segment === from.segment ? from.offset : 0;
    const bytes = await readFile(segmentPath(dataDir, segment)).catch(() => undefined);
    if (bytes === undefined) continue;
    const end = Math.max(start, bytes.lastIndexOf(0x0a) + 1);
    if (stopped) {
      waiting += linesIn(bytes, start, end);
      continue;
    }
    // The end of the last line taken; unreadable lines are taken only with a settled line after them.
    let taken = start;
    let pending = 0;
    for (let offset = start; offset < end; ) {
      const lineEnd = bytes.indexOf(0x0a, offset) + 1;
      const line = bytes.subarray(offset, lineEnd - 1).toString('utf8');
      offset = lineEnd;
      if (line.trim() === '') {
        if (pending === 0) taken = lineEnd;
        continue;
      }
      const entry = parseEntry(line);
      if (entry === undefined) {
        pending++;
        continue;
      }
      if (Date.parse(entry.at) > settled) {
        stopped = true;
        break;
      }
      unreadable += pending;
      pending = 0;
      taken = lineEnd;
      entries++;
      if (entry.unparsed) unparsed++;
      if (entry.dropped) dropped.push({ at: entry.at, ...entry.dropped });
      for (const id of entry.ids ?? []) ids.add(id);
    }
    if (!stopped && pending > 0) {
      // Nothing after them says when they were written: the segment's last change does.
      const modified = (await stat(segmentPath(dataDir, segment)).catch(() => undefined))?.mtimeMs ?? Number.POSITIVE_INFINITY;
      if (modified <= settled) {
        unreadable += pending;
        taken = end;
      } else stopped = true;
    }
    if (stopped) waiting += linesIn(bytes, taken, end);
    through = { segment, offset: taken };
  }
  return { ids: [...ids], unparsed, unreadable, dropped, entries, waiting, through };
}

/** What the `dropped` entries of a segment tell of, summed: a writer dropping that segment carries it on. */
export async function droppedIn(dataDir: string, segment: string): Promise<{ segments: number; bytes: number }> {
  const text = await readFile(segmentPath(dataDir, segment), 'utf8').catch(() => '');
  const sum = { segments: 0, bytes: 0 };
  for (const line of text.split('\n')) {
    const dropped = line.includes('"dropped"') ? parseEntry(line)?.dropped : undefined;
    if (dropped) Object.assign(sum, { segments: sum.segments + dropped.segments, bytes: sum.bytes + dropped.bytes });
  }
  return sum;
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

/** The consumed mark: up to where changes are in the warehouse, and whether its file is damaged. */
export interface ConsumedMark {
  /** Undefined when nothing was consumed yet, or the file is damaged. */
  readonly position: JournalPosition | undefined;
  /** The file exists and is not a mark: which changes are in is unknown, so the next run takes a full snapshot. */
  readonly damaged: boolean;
}

export async function readConsumedMark(dataDir: string): Promise<ConsumedMark> {
  let text: string;
  try {
    text = await readFile(consumedPath(dataDir), 'utf8');
  } catch {
    return { position: undefined, damaged: false };
  }
  const parsed = consumedSchema.safeParse(safeJson(text));
  return parsed.success ? { position: parsed.data.position, damaged: false } : { position: undefined, damaged: true };
}

/** Up to where changes are in the warehouse; undefined when nothing was consumed yet (or its file is damaged). */
export async function readConsumed(dataDir: string): Promise<JournalPosition | undefined> {
  return (await readConsumedMark(dataDir)).position;
}

/**
 * Marks changes up to `position` consumed (it only moves forward), then removes segments
 * wholly before it, except the newest and the receiver's own (it may still append there).
 */
export async function markConsumed(dataDir: string, position: JournalPosition, keepSegment?: string): Promise<void> {
  const current = await readConsumed(dataDir);
  if (comparePositions(position, current) <= 0) return;
  await mkdir(listenDir(dataDir), { recursive: true });
  await writeFileAtomic(consumedPath(dataDir), `${JSON.stringify({ version: 1, position, at: new Date().toISOString() })}\n`);
  const all = await segments(dataDir);
  for (const segment of all.slice(0, -1)) {
    if (segment >= position.segment || segment === keepSegment) continue;
    await unlink(segmentPath(dataDir, segment)).catch(() => undefined);
  }
}

/** The segments and bytes the journal holds, for `status`. */
export async function journalSize(dataDir: string): Promise<{ segments: number; bytes: number }> {
  const sizes = await segmentSizes(dataDir);
  return { segments: sizes.length, bytes: sizes.reduce((sum, size) => sum + size.bytes, 0) };
}

/** The name of a segment started at `now`: after `newest` even when the clock says otherwise. */
export function nextSegmentName(now: Date, newest: string | undefined): string {
  const stamp = (date: Date) => date.toISOString().replace(/[-:.]/g, '');
  let name = stamp(now);
  if (newest !== undefined && name <= newest) {
    const at = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z$/.exec(newest)!.slice(1).map(Number);
    name = stamp(new Date(Date.UTC(at[0]!, at[1]! - 1, at[2]!, at[3]!, at[4]!, at[5]!, at[6]! + 1)));
  }
  return name;
}

/** A line as an entry; undefined when it is none. */
function parseEntry(line: string): z.infer<typeof journalEntrySchema> | undefined {
  const parsed = journalEntrySchema.safeParse(safeJson(line));
  return parsed.success ? parsed.data : undefined;
}

/** Complete lines between two offsets. */
function linesIn(bytes: Buffer, from: number, to: number): number {
  let lines = 0;
  for (let at = bytes.indexOf(0x0a, from); at >= 0 && at < to; at = bytes.indexOf(0x0a, at + 1)) lines++;
  return lines;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
