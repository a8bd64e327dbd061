import { Timeline } from './timeline.js';

export type Item = Record<string, unknown>;

const RECENT_RECORDS = 4096;

/**
 * A resource paged by `last_update` windows. Records are generated on demand from their
 * index and version; what changes after start-up (a new version from `--mutate` or the
 * admin surface, records added by hand) is kept as small overlays.
 */
export abstract class CursorResource {
  readonly timeline: Timeline;
  private readonly versions: Uint16Array;
  /** Fields set through the admin surface, laid over the generated record. */
  private readonly patches = new Map<number, Item>();
  /** Records added verbatim (for example malformed ones for quarantine tests). */
  private readonly verbatim = new Map<number, Item>();
  private readonly copies = new Map<number, number>();
  /** Recently generated records, oldest first (a small FIFO cache). */
  private readonly recent = new Map<number, { version: number; lastUpdateMs: number; item: Item }>();

  protected constructor(
    readonly name: string,
    initialLastUpdate: Float64Array,
  ) {
    this.timeline = new Timeline(initialLastUpdate);
    this.versions = new Uint16Array(initialLastUpdate.length);
  }

  /** Generates record `index` at `version`; `lastUpdate` is the ISO text to put in it. */
  protected abstract generate(index: number, version: number, lastUpdate: string): Item;

  /** The primary key as the API shows it, for the admin surface and ground truth. */
  abstract keyOf(item: Item): string;

  /** The record as the API serves it now. */
  record(index: number): Item {
    const lastUpdateMs = this.timeline.lastUpdateOf(index);
    const version = this.versions[index] ?? 0;
    const cached = this.recent.get(index);
    if (cached && cached.version === version && cached.lastUpdateMs === lastUpdateMs && !this.patches.has(index)) return cached.item;
    const lastUpdate = new Date(lastUpdateMs).toISOString();
    const item = this.verbatim.get(index) ?? this.generate(index, version, lastUpdate);
    const patch = this.patches.get(index);
    const served = patch ? { ...item, ...patch, last_update: lastUpdate } : item;
    // Tickets and merchandise embed their buyer's user record: popular buyers recur.
    if (this.recent.size >= RECENT_RECORDS) this.recent.delete(this.recent.keys().next().value!);
    this.recent.set(index, { version, lastUpdateMs, item: served });
    return served;
  }

  /** A new version of the record, updated at `atMs`. */
  touch(index: number, atMs: number): void {
    if (index < this.versions.length) this.versions[index] = (this.versions[index]! + 1) & 0xffff;
    this.timeline.touch(index, atMs);
  }

  patch(index: number, fields: Item, atMs: number): void {
    this.patches.set(index, { ...this.patches.get(index), ...fields });
    this.touch(index, atMs);
  }

  /** Adds a record exactly as given; `atMs` places it in the timeline. */
  insertVerbatim(item: Item, atMs: number): number {
    const index = this.timeline.append(atMs);
    this.verbatim.set(index, item);
    return index;
  }

  /**
   * Adds a copy of a generated record under a new key, updated at `atMs`: a new sale or
   * a fan's second account, with data as realistic as the generated ones.
   */
  insertCopy(sourceIndex: number, atMs: number): number {
    const lastUpdate = new Date(atMs).toISOString();
    // A copy of a copy is made from the generated record behind it: only those can be generated.
    const origin = this.originOf(sourceIndex);
    const generated = this.generate(origin, 0, lastUpdate);
    const item = { ...generated, ...this.newKey(this.timeline.size, generated) };
    const index = this.insertVerbatim(item, atMs);
    this.copies.set(index, origin);
    return index;
  }

  /** The record a copy was made from, or the index itself. */
  originOf(index: number): number {
    return this.copies.get(index) ?? index;
  }

  /**
   * Key fields for the record that will get `index`, a copy of `copied`; unique beyond the
   * generated ones (with any other id that names one record, such as a season ticket's).
   */
  protected abstract newKey(index: number, copied: Item): Item;

  remove(index: number): void {
    this.timeline.remove(index);
  }
}
