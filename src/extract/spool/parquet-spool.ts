import type { DuckDBInstance } from '@duckdb/node-api';
import { mkdir, open, rm, rmdir, stat, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { IN_MEMORY, openDatabase, withConnection } from '../../core/duckdb.js';
import { FanlakeError } from '../../core/errors.js';
import { SerialQueue } from '../../core/serial-queue.js';
import { commitFile, sha256File } from '../../core/atomic-file.js';
import { isLineageColumn, partFileName, quarantinePath, runDir, spoolFileName, TMP_SUFFIX, toDataRelative } from '../../raw-contract/index.js';
import type { RawFile, RawRunRef } from '../../raw-contract/index.js';
import { asOneLine, recordsAsLines } from './json-lines.js';
import { convertSpoolToParquet } from './json-to-parquet.js';
import { QuarantineWriter } from './quarantine-writer.js';
import { CODE } from '../../core/error-codes.js';

/** Spooled records are written in blocks of about this many bytes. */
const WRITE_BLOCK_BYTES = 1 << 20;

/**
 * Bytes appended but not yet through the queue before `append` makes its caller wait. Below
 * it a caller goes on at once instead of waiting for the block write its page joined (a
 * fan-out answer every few microseconds); above it, pages wait, so what the queue holds
 * stays bounded.
 */
const QUEUED_BYTES_BEFORE_WAITING = WRITE_BLOCK_BYTES;

const NEW_LINE = Buffer.from('\n');

/** Chunks smaller than this are copied into one buffer with their neighbours; larger ones are written as they are. */
const COPY_BELOW_BYTES = 16 * 1024;

/**
 * Chunks (each one or more records as JSON lines: serialized by `append`, or bytes as
 * received made lines in place) as the next lines of the spool, each chunk ended by a line
 * break. A page of bytes as received is written as it is, never copied; fan-out answers of
 * a few hundred bytes are copied together, not handed to the kernel as thousands of pieces.
 */
function linesBlock(chunks: readonly Uint8Array[]): Uint8Array[] {
  const block: Uint8Array[] = [];
  let small: Uint8Array[] = [];
  const copySmall = () => {
    if (small.length > 0) block.push(Buffer.concat(small));
    small = [];
  };
  for (const chunk of chunks) {
    if (chunk.length < COPY_BELOW_BYTES) {
      small.push(chunk, NEW_LINE);
    } else {
      copySmall();
      block.push(chunk, NEW_LINE);
    }
  }
  copySmall();
  return block;
}

/** Writes every byte of `buffers`, in order, at the file's position. */
async function writeAll(file: FileHandle, buffers: Uint8Array[]): Promise<void> {
  const total = buffers.reduce((sum, buffer) => sum + buffer.length, 0);
  let written = (await file.writev(buffers)).bytesWritten;
  if (written === total) return;
  // A short write (rare for files): the rest, copied once.
  const rest = Buffer.concat(buffers).subarray(written);
  for (let at = 0; at < rest.length; at += written) written = (await file.write(rest, at)).bytesWritten;
}

/**
 * Conversions sharing one DuckDB (its `conversions`), or each opening its own (this queue), run
 * one after another: each holds a row group of wide rows in memory, and several at once would
 * break the memory budget.
 */
const FRESH_DUCKDB_CONVERSIONS = new SerialQueue();

/** The type undeclared fields get: any JSON value fits, and nested values stay nested. */
export const UNDECLARED_COLUMN_TYPE = 'JSON';

/** Sized so one part is a few tens of MB for typical records and converts in seconds. */
export const DEFAULT_ROWS_PER_FILE = 250_000;

// The Parquet writer holds a row group in memory: groups of 8,192 wide ticket rows keep the
// extract's peak lower than 16,384, and DuckDB reads them back as fast (4,096 loads slower).
const DEFAULT_ROW_GROUP_SIZE = 8_192;

// A DuckDB keeps the blocks a conversion used (up to its memory limit) and its allocator
// keeps what was freed, so one instance reused for every part grows over a long run; an
// instance per part returns its memory when closed and costs little to open.
// One thread: a second does not speed the conversion up and doubles its buffers.
const CONVERSION_DUCKDB = { memoryLimit: '160MB', threads: 1, preserveInsertionOrder: false } as const;

/**
 * One DuckDB for every conversion of a run (`extract.conversionMemory = keep`, the default),
 * to pass as `duckdb`; the caller closes it. What an instance per part costs is its memory
 * faulted in again for every part (page faults in proportion to its rows), not its
 * opening. A kept instance holds the working set of the largest conversion, so its parts
 * are smaller (see `PARTS` in date-window-extractor.ts). It asks for DuckDB's
 * allocator on one arena without thread caches unless DUCKDB_JE_MALLOC_CONF is set (without
 * it the peak grows more than twice as much). The allocator reads it when DuckDB's library
 * loads, so it holds for the whole process (a `run` builds with it too: a little slower, with
 * less memory), and not at all if the library was loaded before. The instance opens at
 * the first conversion, not before the first request. See docs/extraction.md.
 */
export class KeptConversionDatabase {
  #opening: Promise<DuckDBInstance> | undefined;
  /** The conversions on this instance, one at a time (see FRESH_DUCKDB_CONVERSIONS). */
  readonly conversions = new SerialQueue();

  constructor() {
    process.env.DUCKDB_JE_MALLOC_CONF ??= 'narenas:1,tcache:false';
  }

  /** The instance, opened on the first call. */
  instance(): Promise<DuckDBInstance> {
    return (this.#opening ??= openDatabase(IN_MEMORY, CONVERSION_DUCKDB));
  }

  async close(): Promise<void> {
    const opening = this.#opening;
    this.#opening = undefined;
    if (opening) (await opening).closeSync();
  }
}

export interface ParquetSpoolOptions extends RawRunRef {
  /** Root of everything fanlake writes; files land in `runDir(dataDir, run)` and are reported relative to it. */
  dataDir: string;
  /** Declared column name → DuckDB type, in output order (see `duckdbColumns`). */
  columns: Readonly<Record<string, string>>;
  /** ISO-8601 timestamp stamped on every row as `_extracted_at`. */
  extractedAt: string;
  /** Rows per Parquet part; a part is written each time this many rows were appended. */
  rowsPerFile?: number;
  /** Spooled bytes per Parquet part: a part is also written once this many bytes were appended (default: no limit). */
  bytesPerFile?: number;
  rowGroupSize?: number;
  /**
   * A DuckDB to convert with, shared by several spools (each conversion opens its own
   * connection). Without one each conversion opens and closes its own in-memory DuckDB
   * (160MB, one thread), one conversion at a time in the process.
   */
  duckdb?: KeptConversionDatabase;
}

export interface SpoolResult {
  /** Parquet parts in order, paths relative to the data dir. */
  files: RawFile[];
  rows: number;
  quarantined: number;
  /** Declared columns, then the undeclared keys seen, as `JSON`: what the manifest records. */
  columns: Record<string, string>;
}

/**
 * Streams one resource's records of one run into Parquet parts with bounded memory.
 *
 * Records are appended to `part-NNNNN.json.tmp` as JSON lines (json-lines.ts); once a part holds
 * `rowsPerFile` rows or `bytesPerFile` bytes (checked after each page), and at `finish()`, DuckDB turns the spool
 * into `part-NNNNN.parquet` (written as
 * `.tmp`, fsynced, renamed) while the next part fills, and the spool is deleted. Values
 * stay exactly as the API sent them; keys nobody declared become extra `JSON` columns so a
 * new API field survives into raw. Calls are queued, so a caller may fire `append` without awaiting each one.
 *
 * @example
 * const spool = new ParquetSpool({ dataDir, source: 'ticketing', resource: 'tickets', runId, extractedAt, columns });
 * for await (const page of pages) await spool.append(page.items);
 * const { files, rows } = await spool.finish();
 */
export class ParquetSpool {
  readonly dir: string;
  readonly #options: ParquetSpoolOptions;
  readonly #rowsPerFile: number;
  readonly #bytesPerFile: number;
  readonly #columns: Map<string, string>;
  // Lowercased column name → the exact name: DuckDB names are case-insensitive.
  readonly #folded = new Map<string, string>();
  readonly #quarantine: QuarantineWriter;
  readonly #files: RawFile[] = [];
  readonly #steps = new SerialQueue();
  #state: 'open' | 'failed' | 'finished' | 'aborted' = 'open';
  #spool: FileHandle | undefined;
  #spoolRows = 0;
  #spoolBytes = 0;
  /** Index of the part being spooled; earlier ones are converted or converting. */
  #part = 0;
  /** The conversion of the previous part, running while the next one fills. */
  #converting: Promise<void> | undefined;
  #pending: Uint8Array[] = [];
  /** Bytes appended whose step has not run yet (see #enqueueBytes). */
  #queuedBytes = 0;
  /** The error that failed the spool, given again to every later call. */
  #failure: unknown;
  #pendingBytes = 0;
  #largestChunk = 0;
  /** Keys of the last record whose keys were all looked up: a record with the same keys in the same order needs no look-up. */
  #knownKeys: string[] = [];

  constructor(options: ParquetSpoolOptions) {
    this.#options = options;
    this.dir = runDir(options.dataDir, options);
    this.#rowsPerFile = options.rowsPerFile ?? DEFAULT_ROWS_PER_FILE;
    this.#bytesPerFile = options.bytesPerFile ?? Number.POSITIVE_INFINITY;
    if (!Number.isInteger(this.#rowsPerFile) || this.#rowsPerFile < 1) {
      throw new FanlakeError(CODE.E_SPOOL_OPTIONS, `rowsPerFile must be a positive integer, got ${this.#rowsPerFile}`);
    }
    this.#columns = new Map();
    for (const [name, type] of Object.entries(options.columns)) this.#addColumn(name, type);
    this.#quarantine = new QuarantineWriter(quarantinePath(options.dataDir, options));
  }

  /**
   * Adds a page of validated records (plain JSON objects as the API sent them). `raw`, when
   * given, holds each record's bytes as received (one per record), spooled instead of
   * serializing the record again; each is made one line in place (see json-lines.ts).
   */
  append(records: readonly Record<string, unknown>[], raw?: readonly Buffer[]): Promise<void> {
    if (raw !== undefined) return this.appendLines(records.length, raw.map(asOneLine), records);
    // Serialized and encoded here, not in the queue: only bytes outside V8's heap wait there,
    // so a page's objects and their text die young.
    let chunk: Uint8Array;
    try {
      for (const record of records) this.#checkRecord(record);
      chunk = recordsAsLines(records);
    } catch (error) {
      return this.#enqueue(() => Promise.reject(error));
    }
    return this.#enqueueBytes([chunk], records.length);
  }

  /**
   * Adds `rows` records given only as JSON lines (chunks of one or more lines, no line break
   * at a chunk's end; see json-lines.ts). Their keys must be columns already, except those
   * of `parsed`: records among them that are looked at for keys nobody declared.
   */
  appendLines(rows: number, lines: readonly Uint8Array[], parsed: readonly Record<string, unknown>[] = []): Promise<void> {
    try {
      for (const record of parsed) this.#checkRecord(record);
    } catch (error) {
      return this.#enqueue(() => Promise.reject(error));
    }
    return this.#enqueueBytes(lines, rows);
  }

  /** Keeps an item that failed validation, with why, in `quarantine.ndjson`. */
  quarantine(item: unknown, reason: string): Promise<void> {
    return this.#enqueue(() => this.#quarantine.append(item, reason));
  }

  /**
   * Writes the last part and the quarantine file and returns what the manifest needs. A run
   * with no rows still gets one empty part, so its column types reach the loader.
   */
  finish(): Promise<SpoolResult> {
    return this.#enqueue(async () => {
      try {
        if (this.#spoolRows > 0 || this.#part === 0) await this.#writePart();
        await this.#converting;
        await this.#quarantine.finish();
      } finally {
        await this.#converting?.catch(() => undefined);
      }
      this.#state = 'finished';
      return {
        files: [...this.#files],
        rows: this.#files.reduce((sum, file) => sum + file.rows, 0),
        quarantined: this.#quarantine.count,
        columns: Object.fromEntries(this.#columns),
      };
    });
  }

  /** Deletes everything this spool wrote; for a run that failed. Safe to call more than once. */
  async abort(): Promise<void> {
    await this.#steps.idle();
    if (this.#state === 'aborted') return;
    this.#state = 'aborted';
    await this.#spool?.close();
    this.#spool = undefined;
    await this.#converting?.catch(() => undefined);
    await this.#quarantine.abort();
    for (let part = 0; part <= this.#part; part++) {
      await rm(join(this.dir, spoolFileName(part)), { force: true });
      await rm(`${join(this.dir, partFileName(part))}${TMP_SUFFIX}`, { force: true });
    }
    for (const file of this.#files) await rm(join(this.#options.dataDir, file.path), { force: true });
    await rmdir(this.dir).catch(() => undefined);
  }

  /**
   * Queues records given as bytes. The caller waits only while more than
   * QUEUED_BYTES_BEFORE_WAITING are queued; a failure of a step nobody waited for fails
   * every later call, finish() included, with that step's error.
   */
  #enqueueBytes(chunks: readonly Uint8Array[], rows: number): Promise<void> {
    let bytes = 0;
    for (const chunk of chunks) bytes += chunk.length;
    this.#queuedBytes += bytes;
    const appended = this.#enqueue(() => this.#append(chunks, rows)).finally(() => {
      this.#queuedBytes -= bytes;
    });
    if (this.#queuedBytes > QUEUED_BYTES_BEFORE_WAITING) return appended;
    appended.catch(() => undefined);
    return Promise.resolve();
  }

  #enqueue<T>(step: () => Promise<T>): Promise<T> {
    const run = async (): Promise<T> => {
      if (this.#state !== 'open') {
        throw this.#failure ?? new FanlakeError(CODE.E_SPOOL_CLOSED, `spool of ${this.#options.source}.${this.#options.resource} is ${this.#state}`);
      }
      try {
        return await step();
      } catch (error) {
        // A half-written page or part cannot be trusted: only abort() is allowed from here.
        this.#state = 'failed';
        this.#failure = error;
        throw error;
      }
    };
    return this.#steps.run(run);
  }

  async #append(chunks: readonly Uint8Array[], rows: number): Promise<void> {
    if (rows === 0) return;
    for (const chunk of chunks) {
      this.#largestChunk = Math.max(this.#largestChunk, chunk.length);
      this.#pending.push(chunk);
      this.#pendingBytes += chunk.length;
      this.#spoolBytes += chunk.length;
    }
    this.#spoolRows += rows;
    // Fan-outs append many tiny pages (one consent list per profile): chunks are gathered
    // and written in blocks, not one write per page.
    if (this.#pendingBytes >= WRITE_BLOCK_BYTES) await this.#flush();
    if (this.#spoolRows >= this.#rowsPerFile || this.#spoolBytes >= this.#bytesPerFile) await this.#writePart();
  }

  #checkRecord(record: Record<string, unknown>): void {
    if (record === null || typeof record !== 'object' || Array.isArray(record)) {
      throw new FanlakeError(CODE.E_SPOOL_RECORD, 'a record must be a JSON object', this.#context());
    }
    this.#findUndeclaredKeys(record);
  }

  /** Adds a column for each key that no column has yet; runs for every record, so the common case is one comparison per key. */
  #findUndeclaredKeys(record: Record<string, unknown>): void {
    const known = this.#knownKeys;
    let k = 0;
    // for-in allocates no key array.
    for (const key in record) {
      if (known[k++] !== key) {
        this.#learnKeys(record);
        return;
      }
    }
  }

  #learnKeys(record: Record<string, unknown>): void {
    const keys: string[] = [];
    for (const key in record) {
      if (!this.#columns.has(key)) this.#addColumn(key, UNDECLARED_COLUMN_TYPE);
      keys.push(key);
    }
    this.#knownKeys = keys;
  }

  async #flush(): Promise<void> {
    if (this.#pending.length === 0) return;
    const block = linesBlock(this.#pending);
    this.#pending = [];
    this.#pendingBytes = 0;
    await writeAll(await this.#openSpool(), block);
  }

  async #openSpool(): Promise<FileHandle> {
    if (this.#spool === undefined) {
      await mkdir(this.dir, { recursive: true });
      this.#spool = await open(this.#spoolPath(), 'w');
    }
    return this.#spool;
  }

  /**
   * Closes the part being spooled and hands it to DuckDB; the next part starts filling at
   * once, so pages keep flowing while a part converts. One conversion per spool runs at a
   * time (a second full part waits for the first), which keeps parts in order and bounds
   * the spool files on disk to two.
   */
  async #writePart(): Promise<void> {
    await this.#flush();
    const spool = await this.#openSpool();
    await spool.close();
    this.#spool = undefined;
    const job = { part: this.#part, rows: this.#spoolRows, largestRecord: this.#largestChunk, columns: [...this.#columns] };
    this.#part++;
    this.#spoolRows = 0;
    this.#spoolBytes = 0;
    this.#largestChunk = 0;
    await this.#converting;
    const converting = this.#convert(job);
    // Its failure surfaces where it is awaited (the next part, finish or abort), not as an unhandled rejection.
    converting.catch(() => undefined);
    this.#converting = converting;
  }

  async #convert(job: { part: number; rows: number; largestRecord: number; columns: [string, string][] }): Promise<void> {
    const spoolPath = join(this.dir, spoolFileName(job.part));
    const part = join(this.dir, partFileName(job.part));
    const tmp = `${part}${TMP_SUFFIX}`;
    const shared = this.#options.duckdb;
    const written = await (shared?.conversions ?? FRESH_DUCKDB_CONVERSIONS).run(async () => {
      const duckdb = shared ? await shared.instance() : await openDatabase(IN_MEMORY, CONVERSION_DUCKDB);
      try {
        return await withConnection(duckdb, (connection) =>
          convertSpoolToParquet(connection, {
            spoolPath,
            parquetPath: tmp,
            columns: job.columns,
            runId: this.#options.runId,
            extractedAt: this.#options.extractedAt,
            largestRecordBytes: job.largestRecord,
            rowGroupSize: this.#options.rowGroupSize ?? DEFAULT_ROW_GROUP_SIZE,
          }),
        );
      } finally {
        if (shared === undefined) duckdb.closeSync();
      }
    });
    if (written !== job.rows) {
      throw new FanlakeError(CODE.E_SPOOL_CONVERT, `spooled ${job.rows} rows but DuckDB wrote ${written}`, this.#context());
    }
    await commitFile(tmp, part);
    await unlink(spoolPath);
    this.#files.push({
      path: toDataRelative(this.#options.dataDir, part),
      rows: written,
      bytes: (await stat(part)).size,
      sha256: await sha256File(part),
    });
  }

  #addColumn(name: string, type: string): void {
    const folded = name.toLowerCase();
    const clash = this.#folded.get(folded) ?? (isLineageColumn(folded) ? folded : undefined);
    if (clash !== undefined) {
      // DuckDB cannot hold both names in one table; failing beats silently dropping a field.
      throw new FanlakeError(
        CODE.E_SPOOL_COLUMN_CONFLICT,
        `field ${JSON.stringify(name)} clashes with column ${JSON.stringify(clash)} (DuckDB names ignore case)`,
        this.#context({ key: name }),
      );
    }
    this.#folded.set(folded, name);
    this.#columns.set(name, type);
  }

  #spoolPath(): string {
    return join(this.dir, spoolFileName(this.#part));
  }

  #context(extra: Record<string, unknown> = {}): { context: Record<string, unknown> } {
    return { context: { source: this.#options.source, resource: this.#options.resource, runId: this.#options.runId, ...extra } };
  }
}
