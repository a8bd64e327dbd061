import { mkdir, open, unlink } from 'node:fs/promises';
import { fsyncDir } from '../core/atomic-file.js';
import { JOURNAL_DEFAULTS } from '../config/settings.js';
import { comparePositions, droppedIn, type JournalEntry, journalDir, nextSegmentName, readConsumed, segmentPath, segments, segmentSizes } from './journal.js';

/** The part of a file the writer uses; tests put a failing disk here. */
export interface JournalFile {
  append(text: string): Promise<void>;
  /** Flushes the data written to disk. */
  sync(): Promise<void>;
  truncate(length: number): Promise<void>;
  close(): Promise<void>;
}

export interface JournalWriterOptions {
  /** A new segment is started once the live one holds this many bytes. */
  readonly segmentBytes: number;
  /** Most bytes the journal keeps; beyond, its oldest segments are dropped (see `JournalWriter`). */
  readonly maxBytes: number;
  /** The clock of segment names and of the writer's own entries. */
  readonly now?: () => Date;
  /** Creates a segment file to append to (it must not exist). */
  readonly openFile?: (path: string) => Promise<JournalFile>;
}

async function openSegmentFile(path: string): Promise<JournalFile> {
  const handle = await open(path, 'ax');
  return { append: (text) => handle.appendFile(text), sync: () => handle.datasync(), truncate: (length) => handle.truncate(length), close: () => handle.close() };
}

/**
 * Appends entries to the journal, in a segment of its own. Appends that arrive while a write
 * is syncing go together in the next write and sync (a group commit), so a burst of
 * deliveries costs one fsync per batch, not one per delivery; each `append` resolves once its
 * line is on disk, and rejects when it is not (the platform then gets an error and retries).
 *
 * A failed write (a full disk) may leave part of its batch in the segment: the segment is
 * truncated back to its last complete line before anything else is written, so no later
 * line is glued onto partial bytes; when even that fails, the next batch goes to a new
 * segment, and the partial line stays at the end of the old one, where readers ignore a line
 * without its newline.
 *
 * The live segment rotates at `segmentBytes`. After each new segment, when the journal holds
 * more than `maxBytes` (no run consumed it for long), its oldest segments go: wholly consumed
 * ones silently, unconsumed ones only after a `dropped` entry is on disk in the live segment,
 * so the next run takes a full snapshot and says why instead of missing those changes.
 */
export class JournalWriter {
  private queue: { line: string; done: () => void; failed: (error: unknown) => void }[] = [];
  private flushing: Promise<void> | undefined;
  private closed = false;
  private file: JournalFile | undefined;
  private live = '';
  /** Bytes of complete lines in the live segment. */
  private size = 0;
  private readonly now: () => Date;
  private readonly openFile: (path: string) => Promise<JournalFile>;

  private constructor(
    private readonly dataDir: string,
    private readonly options: JournalWriterOptions,
  ) {
    this.now = options.now ?? (() => new Date());
    this.openFile = options.openFile ?? openSegmentFile;
  }

  static async open(dataDir: string, options: JournalWriterOptions = JOURNAL_DEFAULTS): Promise<JournalWriter> {
    await mkdir(journalDir(dataDir), { recursive: true });
    const writer = new JournalWriter(dataDir, options);
    await writer.startSegment();
    return writer;
  }

  /** The segment appended to now. */
  get segment(): string {
    return this.live;
  }

  append(entry: JournalEntry): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the change journal is closed'));
    return new Promise((done, failed) => {
      this.queue.push({ line: `${JSON.stringify(entry)}\n`, done, failed });
      this.flushing ??= this.flush();
    });
  }

  /** Waits for what is queued, then closes the segment. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flushing;
    await this.file?.close();
    this.file = undefined;
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      try {
        if (this.file === undefined) await this.startSegment();
        // A segment past its size still takes the next lines when no new one can be made.
        else if (this.size >= this.options.segmentBytes) await this.startSegment().catch(() => undefined);
        await this.write(batch.map((item) => item.line).join(''));
        for (const item of batch) item.done();
      } catch (error) {
        for (const item of batch) item.failed(error);
      }
    }
    this.flushing = undefined;
  }

  /** Appends complete lines and syncs them; on failure cuts the segment back to its last complete line. */
  private async write(text: string): Promise<void> {
    const file = this.file!;
    try {
      await file.append(text);
      await file.sync();
      this.size += Buffer.byteLength(text);
    } catch (error) {
      try {
        await file.truncate(this.size);
        await file.sync();
      } catch {
        this.file = undefined;
        await file.close().catch(() => undefined);
      }
      throw error;
    }
  }

  /** Starts a new segment (closing the live one), then keeps the journal within its bound. */
  private async startSegment(): Promise<void> {
    const name = nextSegmentName(this.now(), (await segments(this.dataDir)).at(-1));
    const file = await this.openFile(segmentPath(this.dataDir, name));
    // The new name must survive a power cut as well as the lines written into it.
    await fsyncDir(journalDir(this.dataDir));
    await this.file?.close().catch(() => undefined);
    this.file = file;
    this.live = name;
    this.size = 0;
    await this.keepWithinBound().catch(() => undefined);
  }

  /** Drops the oldest segments while the journal holds more than `maxBytes`, never the live one. */
  private async keepWithinBound(): Promise<void> {
    const sizes = await segmentSizes(this.dataDir);
    let total = sizes.reduce((sum, size) => sum + size.bytes, 0);
    const drop: typeof sizes = [];
    for (const size of sizes) {
      if (total <= this.options.maxBytes || size.segment >= this.live) break;
      drop.push(size);
      total -= size.bytes;
    }
    if (drop.length === 0) return;
    const consumed = await readConsumed(this.dataDir);
    const unconsumed = drop.filter((size) => comparePositions({ segment: size.segment, offset: size.bytes }, consumed) > 0);
    if (unconsumed.length > 0) {
      // An earlier dropped entry in a segment that goes now is carried on in this one.
      const dropped = { segments: unconsumed.length, bytes: unconsumed.reduce((sum, size) => sum + size.bytes, 0) };
      for (const size of unconsumed) {
        const earlier = await droppedIn(this.dataDir, size.segment);
        dropped.segments += earlier.segments;
        dropped.bytes += earlier.bytes;
      }
      await this.write(`${JSON.stringify({ at: this.now().toISOString(), dropped } satisfies JournalEntry)}\n`);
    }
    for (const size of drop) await unlink(segmentPath(this.dataDir, size.segment)).catch(() => undefined);
  }
}
