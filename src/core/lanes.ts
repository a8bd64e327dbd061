import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { connect, type DuckDBBudget } from './duckdb.js';

/**
 * Queries run at once on one open database (check's tests, the reports' queries): most of them
 * are small and keep one core busy, with a core idle between statements, so two keep a small
 * machine's cores busy; they share the instance's threads and memory. One where DuckDB may use
 * one thread.
 */
const LANES = 2;

export function laneCount(budget: DuckDBBudget | undefined): number {
  return Math.max(1, Math.min(LANES, budget?.threads ?? LANES));
}

/** Runs `fn` with `main` and as many more connections to `instance` as laneCount allows, closing those after. */
export async function withLanes<T>(instance: DuckDBInstance, main: DuckDBConnection, budget: DuckDBBudget | undefined, fn: (lanes: DuckDBConnection[]) => Promise<T>): Promise<T> {
  return withConnections(instance, main, laneCount(budget), fn);
}

/** Runs `fn` with `count` connections to `instance`: `main` and new ones, closed after. */
export async function withConnections<T>(instance: DuckDBInstance, main: DuckDBConnection, count: number, fn: (connections: DuckDBConnection[]) => Promise<T>): Promise<T> {
  const others: DuckDBConnection[] = [];
  try {
    for (let at = 1; at < count; at++) others.push(await connect(instance));
    return await fn([main, ...others]);
  } finally {
    for (const other of others) other.closeSync();
  }
}

/**
 * Runs `work` for every item, one item per lane at a time, each lane taking the next item in
 * order as it frees; returns each item's result. A rejection is thrown once every lane has
 * stopped, so no query is left running on a connection about to close.
 */
export async function inLanes<L, T, R>(lanes: readonly L[], items: readonly T[], work: (lane: L, item: T) => Promise<R>): Promise<Map<T, R>> {
  const results = new Map<T, R>();
  let next = 0;
  let failed = false;
  const settled = await Promise.allSettled(
    lanes.map(async (lane) => {
      while (!failed && next < items.length) {
        const item = items[next++]!;
        try {
          results.set(item, await work(lane, item));
        } catch (error) {
          failed = true;
          throw error;
        }
      }
    }),
  );
  for (const lane of settled) if (lane.status === 'rejected') throw lane.reason;
  return results;
}
