import { FanlakeError } from '../core/errors.js';
import { CODE } from '../core/error-codes.js';
import type { DifferenceBase, Manifest } from '../raw-contract/index.js';
import { SnapshotState } from '../extract/snapshot-state.js';
import { sameBase } from '../warehouse/difference-base.js';

/** A pending run the load passes over for good, and the warning that says why. */
export interface SkippedDifference {
  readonly manifest: Manifest;
  /** `E_LOAD_DIFFERENCE_BASE`: reported, never thrown; the load goes on. */
  readonly warning: FanlakeError;
}

/** A snapshot written as a difference: it holds only what changed against its base. */
export function isDifference(manifest: Manifest): boolean {
  return manifest.keys !== undefined;
}

/**
 * Splits a table's pending runs, oldest first, into those the load merges and the
 * differences it skips. A difference holds only what changed against the warehouse state it
 * was cut against, so it is applied onto that state only: it must be the first run this load
 * merges into the table (a run merged before it makes a state no manifest can name yet) and
 * its base must equal `current`, the table's state now. One written by an earlier fanlake
 * names no base and is skipped too. Whole runs always apply.
 */
export function splitByBase(manifests: readonly Manifest[], current: DifferenceBase | undefined): { apply: Manifest[]; skip: SkippedDifference[] } {
  const apply: Manifest[] = [];
  const skip: SkippedDifference[] = [];
  for (const manifest of manifests) {
    if (!isDifference(manifest)) {
      apply.push(manifest);
      continue;
    }
    const why =
      manifest.base === undefined ? 'it names no warehouse state (written by an earlier fanlake)'
      : apply.length > 0 ? `it was taken against ${describeBase(manifest.base)}, and run ${apply.at(-1)!.runId} is merged before it in this load`
      : sameBase(manifest.base, current) ? undefined
      : `it was taken against ${describeBase(manifest.base)}, and the table holds ${current === undefined ? 'no loaded run' : describeBase(current)}`;
    if (why === undefined) {
      apply.push(manifest);
      continue;
    }
    const subject = `${manifest.source}.${manifest.resource}`;
    const message = `difference run ${manifest.runId} of ${subject} skipped: ${why}; the next extract writes ${manifest.resource} whole`;
    skip.push({ manifest, warning: new FanlakeError(CODE.E_LOAD_DIFFERENCE_BASE, message, { context: { source: manifest.source, resource: manifest.resource, runId: manifest.runId } }) });
  }
  return { apply, skip };
}

function describeBase(base: DifferenceBase): string {
  return `run ${base.runId} loaded at ${base.loadedAt} with ${base.rows} rows`;
}

/**
 * Asks the next extraction to read every resource with a skipped difference in full and to
 * write it whole (SnapshotState.markWhole): the skipped run's changes reach the warehouse that
 * way, whatever state it is in. Called before the load's transaction: should the load fail
 * after, one whole snapshot too many is the only cost.
 */
export async function requestWholeSnapshots(dataDir: string, skipped: readonly SkippedDifference[]): Promise<void> {
  const bySource = new Map<string, Map<string, string>>();
  for (const { manifest } of skipped) {
    const tables = bySource.get(manifest.source) ?? new Map<string, string>();
    tables.set(manifest.resource, `the load skipped difference run ${manifest.runId} of ${manifest.resource} (taken against another warehouse state)`);
    bySource.set(manifest.source, tables);
  }
  for (const [source, tables] of bySource) await (await SnapshotState.open(dataDir, source)).markWhole(tables);
}
