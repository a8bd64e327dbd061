import type { DuckDBBudget } from '../core/duckdb.js';
import type { Config } from './load-config.js';

/**
 * What DuckDB may use in the commands that open the warehouse, stages and readers alike: the
 * settings `warehouse.memoryLimit` and `warehouse.threads`. The memory is a cap, not a
 * reservation: a stage that needs more, such as identity resolution's pairwise comparison at
 * large scales, completes by spilling to disk, at some CPU, instead of failing.
 */
export function duckdbBudget(config: Config): DuckDBBudget {
  return { memoryLimit: config['warehouse.memoryLimit'], threads: config['warehouse.threads'] };
}
