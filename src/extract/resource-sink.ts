import { duckdbColumns, itemValidator } from '../sources/fields.js';
import type { TableSpec } from '../sources/resource-spec.js';
import { type DifferenceBase, type RawFile, writeManifest } from '../raw-contract/index.js';
import { writeAsDifference } from './snapshot-difference.js';
import { type KeptConversionDatabase, ParquetSpool, type SpoolResult } from './spool/index.js';
import { crashPoint } from '../core/crash-point.js';
import { PageScanner, type ScannedPage } from './spool/page-scanner.js';

const ROWS_PER_PART = 100_000;

/** What every resource of one run shares. */
export interface RunContext {
  readonly dataDir: string;
  readonly runId: string;
  readonly runStartedAt: Date;
  /** A DuckDB to convert spools with; without one each part opens its own (see ParquetSpool). */
  readonly duckdb?: KeptConversionDatabase;
}

/** The raw shape of one resource: what is validated, keyed and stored. */
export interface SinkSpec extends TableSpec {
  readonly source: string;
}

/**
 * Where one resource's items go in a run: validated against the declaration, invalid ones
 * quarantined with the reason, valid ones spooled to Parquet; `commit` writes the parts and
 * then the manifest that makes them visible to the loader.
 */
export class ResourceSink {
  private readonly spool: ParquetSpool;
  private readonly validate: ReturnType<typeof itemValidator>;
  /** Made on the first `scan`: only ticketing pages are read from their bytes. */
  private scanner?: PageScanner;
  private newest?: string;
  private seenKeys?: Set<string>;

  constructor(
    private readonly run: RunContext,
    readonly spec: SinkSpec,
    options: { dedupe?: boolean; rowsPerPart?: number; bytesPerPart?: number } = {},
  ) {
    this.validate = itemValidator(spec.fields, spec.requiredKey ?? spec.primaryKey);
    this.spool = new ParquetSpool({
      dataDir: run.dataDir,
      source: spec.source,
      resource: spec.name,
      runId: run.runId,
      columns: duckdbColumns(spec.fields),
      extractedAt: run.runStartedAt.toISOString(),
      duckdb: run.duckdb,
      // Smaller parts keep each conversion's memory flat at any scale and overlap them with paging.
      rowsPerFile: options.rowsPerPart ?? ROWS_PER_PART,
      bytesPerFile: options.bytesPerPart,
    });
    // Small resources repeated in many responses (linked consent texts) are written once.
    if (options.dedupe) this.seenKeys = new Set();
  }

  get dir(): string {
    return this.spool.dir;
  }

  /** The newest cursor value among accepted items. */
  get highWaterMark(): string | undefined {
    return this.newest;
  }

  /**
   * Validates and spools a page of items; returns how many were accepted. `raw`, when the
   * caller has it, holds each item's bytes as received, spooled instead of a new serialization.
   */
  async accept(items: readonly unknown[], raw?: readonly Buffer[]): Promise<number> {
    const valid: Record<string, unknown>[] = [];
    const validRaw: Buffer[] | undefined = raw ? [] : undefined;
    const quarantined: Promise<void>[] = [];
    for (let k = 0; k < items.length; k++) {
      if (!this.keep(items[k], quarantined)) continue;
      valid.push(items[k] as Record<string, unknown>);
      validRaw?.push(raw![k]!);
    }
    await Promise.all(quarantined);
    if (valid.length > 0) await this.spool.append(valid, validRaw);
    crashPoint('extract:page-spooled');
    return valid.length;
  }

  /**
   * Reads a list page's body without parsing it (see PageScanner): undefined when the body
   * must be parsed whole and given to `accept`.
   */
  scan(body: Buffer): ScannedPage | undefined {
    this.scanner ??= new PageScanner({ fields: this.spec.fields, requiredKey: this.spec.requiredKey ?? this.spec.primaryKey, cursorField: this.spec.cursorField });
    return this.scanner.scan(body);
  }

  /**
   * Spools a scanned page; resolves to how many items were accepted. Items the scan vouched
   * for go as the bytes received, the whole array at once when it vouched for all; each
   * other item is parsed alone and validated like `accept` does: quarantined with the
   * reason, or spooled as received (its undeclared keys becoming columns).
   */
  async acceptScanned(page: ScannedPage): Promise<number> {
    if (page.unsure.length === 0 && this.seenKeys === undefined) {
      this.advance(page.newest);
      await this.spool.appendLines(page.size, [page.lines()]);
      crashPoint('extract:page-spooled');
      return page.size;
    }
    const lines: Uint8Array[] = [];
    const parsed: Record<string, unknown>[] = [];
    const quarantined: Promise<void>[] = [];
    let next = 0;
    for (let k = 0; k < page.size; k++) {
      const sure = page.unsure[next] !== k;
      if (!sure) next++;
      if (sure && this.seenKeys === undefined) {
        lines.push(page.line(k));
        continue;
      }
      const item = page.parse(k);
      if (!this.keep(item, quarantined)) continue;
      if (!sure) parsed.push(item as Record<string, unknown>);
      lines.push(page.line(k));
    }
    this.advance(page.newest);
    await Promise.all(quarantined);
    if (lines.length > 0) await this.spool.appendLines(lines.length, lines, parsed);
    crashPoint('extract:page-spooled');
    // Keys that are columns now are read by the scan from here on.
    for (const record of parsed) for (const name in record) this.scanner?.learn(name);
    return lines.length;
  }

  /**
   * Validates an item and applies the run's deduplication; true to spool it. One that fails
   * is quarantined with the reason (the write joins `quarantined`; the spool keeps the order).
   */
  private keep(item: unknown, quarantined: Promise<void>[]): boolean {
    const verdict = this.validate(item);
    if (!verdict.ok) {
      quarantined.push(this.spool.quarantine(item, verdict.reason));
      return false;
    }
    const record = item as Record<string, unknown>;
    if (this.seenKeys) {
      const key = primaryKeyOf(record, this.spec.primaryKey)!;
      if (this.seenKeys.has(key)) return false;
      this.seenKeys.add(key);
    }
    const cursor = this.spec.cursorField;
    this.advance(cursor ? record[cursor] : undefined);
    return true;
  }

  private advance(value: unknown): void {
    if (typeof value === 'string' && (!this.newest || value > this.newest)) this.newest = value;
  }

  /**
   * Finishes the Parquet parts, then writes the manifest. `snapshot` says the run saw the
   * resource's full set, so the load may flag keys missing from it as vanished; with
   * `asDifference` such a snapshot keeps only what the warehouse lacks, and its keys
   * (`writeAsDifference`; `seen` then counts the records read, `rows` those kept).
   * `removed`: keys a read by key found gone at the source, for the load to flag vanished.
   */
  async commit(details: { snapshot: boolean; windows?: unknown[]; asDifference?: boolean; removed?: Record<string, string>[] }): Promise<SpoolResult & { keys?: RawFile; base?: DifferenceBase; seen?: number }> {
    let written: SpoolResult & { keys?: RawFile; base?: DifferenceBase; seen?: number } = await this.spool.finish();
    if (details.snapshot && details.asDifference && written.files.length > 0) {
      const { dataDir, runId } = this.run;
      const cut = await writeAsDifference({ dataDir, source: this.spec.source, resource: this.spec.name, runId, primaryKey: this.spec.primaryKey, files: written.files });
      if (cut) written = { ...written, files: cut.files, rows: cut.rows, keys: cut.keys, base: cut.base, seen: written.rows };
    }
    const at = this.run.runStartedAt.toISOString();
    await writeManifest(this.run.dataDir, {
      version: 1,
      source: this.spec.source,
      resource: this.spec.name,
      runId: this.run.runId,
      startedAt: at,
      finishedAt: new Date().toISOString(),
      extractedAt: at,
      primaryKey: [...this.spec.primaryKey],
      cursorField: this.spec.cursorField,
      snapshot: details.snapshot,
      ...(written.keys ? { keys: written.keys, base: written.base } : {}),
      ...(details.removed && details.removed.length > 0 ? { removed: details.removed } : {}),
      columns: written.columns,
      files: written.files,
      rows: written.rows,
      quarantined: written.quarantined,
      windows: details.windows,
      highWaterMark: this.newest,
    });
    return written;
  }

  abort(): Promise<void> {
    return this.spool.abort();
  }
}

/** An item's primary key as one string (NULL parts included), or undefined for a non-object. */
export function primaryKeyOf(item: unknown, primaryKey: readonly string[]): string | undefined {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return undefined;
  return primaryKey.map((field) => JSON.stringify((item as Record<string, unknown>)[field] ?? null)).join('|');
}
