import type { DuckDBInstance } from '@duckdb/node-api';
import { duckdbColumns, itemValidator } from '../sources/fields.js';
import type { TableSpec } from '../sources/resource-spec.js';
import { writeManifest } from '../raw-contract/index.js';
import { ParquetSpool, type SpoolResult } from './spool/index.js';
import type { RawItems } from './spool/raw-items.js';

const ROWS_PER_PART = 100_000;

/** What every resource of one run shares. */
export interface RunContext {
  readonly dataDir: string;
  readonly runId: string;
  readonly runStartedAt: Date;
  /** A DuckDB to convert spools with; without one each part opens its own (see ParquetSpool). */
  readonly duckdb?: DuckDBInstance;
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
  private newest?: string;
  private seenKeys?: Set<string>;

  constructor(
    private readonly run: RunContext,
    readonly spec: SinkSpec,
    options: { dedupe?: boolean } = {},
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
      rowsPerFile: ROWS_PER_PART,
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
   * caller has it, holds the items' bytes as received, spooled instead of a new
   * serialization: the page's whole array when every item is accepted, each accepted
   * item's own bytes otherwise.
   */
  async accept(items: readonly unknown[], raw?: RawItems): Promise<number> {
    const valid: Record<string, unknown>[] = [];
    const kept: number[] = [];
    const cursor = this.spec.cursorField;
    for (let k = 0; k < items.length; k++) {
      const item = items[k];
      const verdict = this.validate(item);
      if (!verdict.ok) {
        await this.spool.quarantine(item, verdict.reason);
        continue;
      }
      const record = item as Record<string, unknown>;
      if (this.seenKeys) {
        const key = primaryKeyOf(record, this.spec.primaryKey)!;
        if (this.seenKeys.has(key)) continue;
        this.seenKeys.add(key);
      }
      valid.push(record);
      kept.push(k);
      const value = cursor ? record[cursor] : undefined;
      if (typeof value === 'string' && (!this.newest || value > this.newest)) this.newest = value;
    }
    const accepted = valid.length;
    if (accepted > 0) await this.spool.append(valid, rawOfKept(raw, items.length, kept));
    return accepted;
  }

  /**
   * Finishes the Parquet parts, then writes the manifest. `snapshot` says the run saw the
   * resource's full set, so the load may flag keys missing from it as vanished.
   */
  async commit(details: { snapshot: boolean; windows?: unknown[] }): Promise<SpoolResult> {
    const written = await this.spool.finish();
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

/** The bytes of the kept items (indices into the page), or undefined to serialize them. */
function rawOfKept(raw: RawItems | undefined, total: number, kept: readonly number[]): Uint8Array[] | undefined {
  if (raw === undefined) return undefined;
  if (kept.length === total && raw.all !== undefined) return [raw.all];
  const each = raw.each();
  return each && kept.map((k) => each[k]!);
}
